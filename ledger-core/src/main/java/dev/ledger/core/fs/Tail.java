package dev.ledger.core.fs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.internal.journal.CommitRecord;
import dev.ledger.core.internal.journal.PositionedRecord;
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
  long revision;
  long nextSequence = 1;
  long segment = 1;
  long end;
  JsonNode state;
  /** The state version {@link #state} was written with. */
  int stateVersion;
  Instant updatedAt;
  /** The writer's append channel on {@link #segment}; null for readers and before segment 1. */
  FileChannel channel;
  /** The size of {@link #segment}'s file as the writer last saw it; beyond {@link #end}, zeros. */
  long allocated;
  /** Whether the writer closed {@link #channel} while idle (see FileLedger.park). */
  boolean parked;
  /** Whether parking cut zeros of {@link #segment} without forcing the cut (writer only). */
  boolean trimUnforced;
  /**
   * Zeros the writer's next extension of {@link #segment} adds: the full window, or one page
   * after parking, doubling at each extension (writer only; see FileLedger.preallocate).
   */
  int window = JournalFiles.PREALLOCATE_BYTES;
  /** Records since the last checkpoint (writer only). */
  int sinceCheckpoint;
  /** Commands committed since the last checkpoint, not yet in the command index (writer only). */
  final Map<String, CommandIndex.Entry> recentCommands = new LinkedHashMap<>();

  /** A tail positioned at {@code checkpoint}, or at the start of an empty ledger. */
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
   * Folds the next record into this position: state, revision, sequence; for a writer also
   * the commands since the checkpoint and the count of records since it.
   *
   * @throws CorruptLedgerException if a patch record has no state before it
   */
  void apply(PositionedRecord positioned, JournalFiles journal, boolean writer) {
    CommitRecord r = positioned.record();
    if (r.state() == null && state == null) {
      throw new CorruptLedgerException(journal.segment(positioned.segment()), positioned.offset(),
          "revision " + r.revision() + " is a patch but no state precedes it");
    }
    state = r.applyTo(state);
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
