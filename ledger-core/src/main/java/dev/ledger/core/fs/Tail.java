package dev.ledger.core.fs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.internal.journal.CommitRecord;
import dev.ledger.core.internal.journal.PositionedRecord;
import dev.ledger.core.internal.json.MergePatch;
import java.nio.channels.FileChannel;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A position in a ledger's journal with the state as of it: where a reader's replay starts
 * (a checkpoint) and ends, and, for the writer, the cached end of the journal it appends to.
 * Not thread-safe: a reader owns its instance; the writer's is guarded by the ledger lock.
 */
final class Tail {
  /**
   * What a tail holds besides its position. A reader's tail always holds the state; the
   * writer's holds only the position after a {@link dev.ledger.core.spi.PatchLog} commit,
   * whose record is built from the caller's patch without the state, until a
   * {@link dev.ledger.core.Ledger} commit records a whole state again.
   */
  enum Holds {
    /** {@link #state} is the state at {@link #revision}. */
    STATE,
    /** {@link #state} is null: the position, sequence and commands only. */
    POSITION
  }

  long revision;
  long nextSequence = 1;
  long segment = 1;
  long end;
  JsonNode state;
  /** The state version {@link #state} was written with. */
  int stateVersion;
  Instant updatedAt;
  /** Whether {@link #state} is held; {@link Holds#POSITION} only for the writer's tail. */
  Holds holds = Holds.STATE;
  /**
   * Whether {@link #state} is this tail's own tree, built by its own folds and never handed
   * out, so that the next patches may be applied to it in place: a fold of n patches then
   * costs one copy of the state and the patches, not n copies. A state taken from elsewhere
   * (a checkpoint, a record, the read cache, a commit) is shared and copied at the next patch.
   */
  private boolean stateOwned;
  /** The writer's append channel on {@link #segment}; null for readers and before segment 1. */
  FileChannel channel;
  /** The size of {@link #segment}'s file as the writer last saw it; beyond {@link #end}, zeros. */
  long allocated;
  /**
   * Whether {@link #allocated} is the file's size, not only what this writer assumed of it:
   * false once the writer saw zeros after {@link #end} that it may not have written (a probe
   * of a tail another writer used meanwhile) until it reads the size or cuts the zeros
   * (writer only; see FileLedger.trimForParking).
   */
  boolean allocatedExact;
  /** Whether the writer closed {@link #channel} while idle (see FileLedger.park). */
  boolean parked;
  /**
   * The checksum digits of the first record of {@link #segment} as the writer saw them when it
   * parked ({@link dev.ledger.core.internal.journal.JournalLine#firstChecksum}), or null if the segment had no record: what
   * tells the writer, when it comes back, that the segment is still the one it parked
   * (writer only; see FileLedger.unpark).
   */
  byte[] parkedFirstChecksum;
  /** Whether parking cut zeros of {@link #segment} without forcing the cut (writer only). */
  boolean trimUnforced;
  /**
   * Zeros the writer's next extension of {@link #segment} adds: none after parking or a
   * recovery (0), then one page, doubling at each extension up to the full window (writer
   * only; see FileLedger.preallocate).
   */
  int window = JournalFiles.PREALLOCATE_BYTES;
  /** Records since the last checkpoint (writer only). */
  int sinceCheckpoint;
  /** Commands committed since the last checkpoint, not yet in the command index (writer only). */
  final Map<String, CommandIndex.Entry> recentCommands = new LinkedHashMap<>();

  /** Forgets the state: from now on this tail holds only its position (writer only). */
  void dropState() {
    state = null;
    stateOwned = false;
    holds = Holds.POSITION;
  }

  /** Holds {@code committed}, a state shared with others (the read cache), from now on. */
  void hold(JsonNode committed) {
    state = committed;
    stateOwned = false;
    holds = Holds.STATE;
  }

  /**
   * A tail positioned at {@code checkpoint}, or at the start of an empty ledger; it holds the
   * checkpoint's state (null before any commit, or for a checkpoint read without its state).
   */
  static Tail start(Checkpoint checkpoint) {
    Tail t = new Tail();
    if (checkpoint != null) {
      t.revision = checkpoint.revision();
      t.nextSequence = checkpoint.nextSequence();
      t.segment = checkpoint.segment();
      t.end = checkpoint.offset();
      t.state = checkpoint.state();
      t.stateVersion = checkpoint.stateVersion();
      t.updatedAt = checkpoint.updatedAt();
    }
    return t;
  }

  /**
   * Folds {@code r}'s state change into {@link #state}, in place when the tree is this tail's
   * own (see {@link #stateOwned}). The state before a patch must not be null.
   *
   * @throws IllegalArgumentException if a patch does not apply
   */
  void fold(CommitRecord r) {
    if (r.state() != null) {
      state = r.state();
      stateOwned = false;
    } else if (stateOwned && state instanceof ObjectNode own && r.patch().isObject()) {
      MergePatch.applyInPlace(own, (ObjectNode) r.patch());
    } else {
      state = r.applyTo(state);
      stateOwned = true;
    }
  }

  /**
   * Folds the next record into this position: state (when held), revision, sequence; for a
   * writer also the commands since the checkpoint and the count of records since it.
   *
   * @throws CorruptLedgerException if a patch record has no state before it
   */
  void apply(PositionedRecord positioned, JournalFiles journal, boolean writer) {
    CommitRecord r = positioned.record();
    if (holds == Holds.STATE) {
      if (r.state() == null && state == null) {
        throw new CorruptLedgerException(journal.segment(positioned.segment()),
            positioned.offset(),
            "revision " + r.revision() + " is a patch but no state precedes it");
      }
      fold(r);
    }
    stateVersion = r.stateVersion();
    revision = r.revision();
    nextSequence = r.nextSequence();
    updatedAt = r.committedAt();
    if (writer) {
      if (r.commandId() != null) {
        recentCommands.put(r.commandId(), new CommandIndex.Entry(r.commandDigest(),
            r.revision(), positioned.segment(), positioned.offset()));
      }
      sinceCheckpoint++;
    }
  }
}
