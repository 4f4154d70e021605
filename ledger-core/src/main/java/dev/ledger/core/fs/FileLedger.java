package dev.ledger.core.fs;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.common.base.Preconditions;
import dev.ledger.core.CommandConflictException;
import dev.ledger.core.CommitListener;
import dev.ledger.core.CommitResult;
import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.Cursor;
import dev.ledger.core.Durability;
import dev.ledger.core.Event;
import dev.ledger.core.EventPage;
import dev.ledger.core.LedgerBusyException;
import dev.ledger.core.LedgerFailedException;
import dev.ledger.core.LedgerHead;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.LedgerNotFoundException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LimitExceededException;
import dev.ledger.core.LockTimeoutException;
import dev.ledger.core.ReadOnlyStoreException;
import dev.ledger.core.RetentionPolicy;
import dev.ledger.core.RetentionResult;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.internal.io.FileLocks;
import dev.ledger.core.internal.io.SafeFiles;
import dev.ledger.core.internal.journal.CommitRecord;
import dev.ledger.core.internal.journal.CursorCodec;
import dev.ledger.core.internal.journal.JournalLine;
import dev.ledger.core.internal.journal.PositionedRecord;
import dev.ledger.core.internal.json.CanonicalWriter;
import dev.ledger.core.spi.CommitRequest;
import dev.ledger.core.spi.CommitSignal;
import dev.ledger.core.spi.CommitWatch;
import dev.ledger.core.spi.CursoredEvent;
import dev.ledger.core.spi.LedgerBackend;
import dev.ledger.core.spi.LoggedCommit;
import dev.ledger.core.spi.PatchLog;
import dev.ledger.core.spi.PatchRequest;
import dev.ledger.core.spi.PendingCommit;
import dev.ledger.core.spi.RawState;
import dev.ledger.core.spi.StoredState;
import dev.ledger.core.spi.WriteMeter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One ledger in a directory: the writer path, and the backend that joins it to the reader.
 *
 * <p><b>Writer path.</b> Lock (in-process, then the {@code .lock} file) → make sure the
 * cached tail is current (a zero byte, or the end of the file, where the next record goes
 * and the absence of a next segment prove no other process committed; otherwise replay what
 * they wrote) → command replay or conflict → revision check → cut a torn tail if recovery
 * found one → write one record line into the segment's preallocated space (with SYNC,
 * extending it by {@link JournalFiles#PREALLOCATE_BYTES} zeros, forced with the record, when
 * it runs out; without forces, appending) → every {@code checkpointInterval} commits, force,
 * then write the command index entries and {@code state.json} → unlock → wait for the
 * {@code force} that covers the record (the commit point), made by this writer or by another
 * of this store's writers of the ledger ({@link ForceGroup}: group commit). One write per
 * commit, and one force for every commit that is ready when it starts.
 *
 * <p><b>Group commit and recovery.</b> The writer lock is let go before the force, so the
 * next commit's record may be written while an earlier one is unforced. Such a record is
 * stamped with the newest revision known forced ({@code forcedThrough}, a format 3 record,
 * see {@link CommitRecord}); a record written when every earlier one is forced is format 2,
 * as before. A power cut may damage any unforced record of a group and keep later ones; the
 * stamps let recovery cut such a group at its first bad record (those records were never
 * acknowledged) while damage to forced records is still reported. Before a checkpoint, at a
 * segment roll and before a channel closes, this writer forces what it wrote (a checkpoint
 * never points past the forced journal, and a segment is whole on disk before the next one
 * exists). Records read from another store or process are forced before a record says they
 * are durable; so are those a recovery finds after the checkpoint, while a recovery that
 * finds the journal ending at its checkpoint forces nothing (a forcing writer's checkpoint
 * is never ahead of the forced journal; a journal written without forces, then reopened
 * with them, gets its records in the current segment forced by the first commit's force,
 * before that commit is acknowledged). Commit listeners and in-process followers hear of a commit once it is durable,
 * in commit order, on the thread that made the force. A load in this process may see a commit
 * before it is durable (as a reader in another process always could); a commit that builds
 * on it is acknowledged only after it.
 *
 * <p><b>Reader path.</b> No lock: {@link LedgerReader}, which this writer tells of every
 * commit it makes so that a load in this process costs two {@code stat}s and a one-byte read.
 *
 * <p><b>Open files.</b> From its first commit a writer keeps its segment's channel and its
 * lock file's channel open, and zeros preallocated after its last record, until the store
 * closes or {@link OpenWriters} parks it ({@link #park}) to keep the store within its
 * {@link LedgerOptions#openWriterLimit()}.
 *
 * <p><b>Failure.</b> An I/O error while appending or forcing poisons the ledger in this store:
 * later writes throw {@link LedgerFailedException} until the store is reopened and recovery
 * reads what is really on disk. A failed checkpoint is logged and retried at the next commit;
 * it never fails a commit that is already durable.
 *
 * <p><b>Patch log.</b> The same ledger is also a {@link PatchLog}: the writer path above, but
 * the record is built from the caller's merge patch, and the writer never builds, diffs or
 * holds the state, so a commit costs its patch, not the state. Record usage: a patch commit
 * writes a {@code patch} record (a {@link CommitRecord} whose {@code patch} is the caller's
 * patch and whose {@code state} is absent), except at revision 1, where nothing precedes it
 * and it writes a {@code state} record holding the patch applied to an empty object (the
 * journal format allows a patch only after a state). A batch ({@link #commitPatches}) is
 * checked whole under one lock, then written as consecutive records and forced once with
 * whatever else is ready (the group commit above); its records after the first are stamped
 * as written before it was forced, so a crash keeps a prefix of whole records of the batch.
 * {@link #appendPatch} returns before the force, for a caller that lets go of its own lock
 * before it waits. After a patch commit the writer's {@link Tail} holds only the position
 * ({@link Tail.Holds#POSITION}); a later {@link dev.ledger.core.Ledger} commit, having no
 * previous state to diff against, records its whole state (a {@code state} record) and the
 * writer holds states again from there. Readers are unchanged: a patch commit does not
 * publish to the read cache (it has no state to publish), so the next load reads forward from
 * the last published position or from the checkpoint, folding the patches.
 *
 * <p><b>Checkpoints of a patch log.</b> {@code state.json} is the caller's to write
 * ({@link #checkpoint(long, JsonNode, int)}), sized to its data: this writer never folds a
 * patch-written state to write one. For a writer holding only the position,
 * {@code checkpointInterval} still bounds the commands not yet in the command index: every
 * interval commits (and on close) their entries are written, without a {@code state.json}.
 * An ordinary commit after patch commits holds the state again and checkpoints by interval
 * as before.
 */
final class FileLedger implements LedgerBackend, PatchLog {
  private static final Logger LOG = LoggerFactory.getLogger(FileLedger.class);

  private final String root;
  private final Path dir;
  private final Path lockFile;
  private final Path stateFile;
  private final JournalFiles journal;
  private final CommandIndex commands;
  private final LedgerOptions options;
  /** Longest record line this writer writes: bounded by its own options' limits. */
  private final int maxWriteLine;
  private final boolean sync;
  /** The store's name when it is read-only (commits refused), else null. */
  private final String readOnlyStore;

  /** The writer's view of the journal end; guarded by the ledger lock. */
  private Tail tail;
  private volatile Throwable failure;
  /** Whether this store made (or found) the ledger's directories; a recovery checks again. */
  private volatile boolean directoriesMade;
  /** The lock file's identity when {@link #tail} was read; guarded by the ledger lock. */
  private Object tailLockKey;
  /**
   * The lock's {@link FileLocks.Held#removal} when {@link #tail} was read: a removal through
   * this JVM since (by another store) means the tail is of a removed ledger, even when the
   * new lock file has the old one's key. Guarded by the ledger lock.
   */
  private long tailRemoval;
  /**
   * The lock's removal number ({@link FileLocks#removal}) when a caller last opened a view
   * of this ledger through {@link #checkpoint} or {@code commitsAfter(0)}, or -1: see
   * {@link #checkView}.
   */
  private volatile long viewRemoval = -1;
  /**
   * The acquisition of the ledger lock ({@link FileLocks.Held#acquisition}) under which
   * {@link #tail} was last found or made current, or 0; guarded by the ledger lock.
   */
  private long tailCurrentUnder;
  /** The acquisition of the ledger lock held now; guarded by the ledger lock. */
  private long lockAcquisition;
  /**
   * Whether nobody took the ledger lock since {@link #tail} was last current (see
   * {@link #took}): then the tail is current without a look at the journal. Guarded by the
   * ledger lock.
   */
  private boolean tailUndisturbed;
  /** The kept lock-file channel, from the first commit until close. */
  private FileLocks.Retained retained;
  private final LedgerReader reader;
  /** Told of each durable commit under the lock (the store's commit listeners). */
  private volatile CommitListener listener = result -> { };
  /** Counts journal bytes and checkpoints for the store's metrics. */
  private volatile WriteMeter meter = WriteMeter.NONE;
  /** Fired once each commit of this store is durable, for followers in this process. */
  private final CommitSignal signal = new CommitSignal();
  /** Journal bytes after the checkpoint, for a patch log's checkpoint policy. */
  private final JournalGrowth growth;
  /** Where this store's last patch commit ended, or null: saves a scan for the data's end. */
  private volatile JournalGrowth.Position patchEnd;
  /**
   * Where this process last saw the journal end (its own patch commits, or a patch log read
   * that reached the end), or null: a caught-up view's next {@link #commitsAfter} starts
   * there instead of at the checkpoint.
   */
  private volatile PatchRecords.Mark patchMark;
  /** Checks {@link #patchMark} against the journal; keeps a channel while this writer is open. */
  private final JournalEndProbe endProbe;
  /** The store's bounded set of ledgers holding open files; told of every commit. */
  private final OpenWriters openWriters;
  /** Group commit: the forces of the journal, shared by this store's writers of the ledger. */
  private final ForceGroup forces;
  /**
   * The update turn ({@link LedgerBackend#inUpdateTurn}): held across an update's load,
   * change function and append, and given up before the force; its holder also runs the
   * attempts queued behind it (flat combining, see {@link UpdateTurn}). Separate from the
   * writer lock, which a commit holds only while it writes: an update holding the turn takes
   * the writer lock inside it, so the order is always turn, then writer lock. Reentrant, so
   * that a change function that updates the ledger on its own thread does not deadlock (the
   * outer attempt then conflicts and retries).
   */
  private final UpdateTurn updateTurn;

  /**
   * A ledger in {@code dir}, a directory of the store's {@code ledgers} directory (which the
   * store checked is no symbolic link). Its reads are bounded by {@code limits}, its writes
   * by {@code options}.
   */
  FileLedger(String root, Path dir, LedgerOptions options, StoreLimits limits,
      String readOnlyStore, OpenWriters openWriters) {
    this.root = root;
    this.openWriters = openWriters;
    this.readOnlyStore = readOnlyStore;
    this.dir = dir;
    this.lockFile = dir.resolve(".lock");
    this.stateFile = dir.resolve("state.json");
    this.options = options;
    this.maxWriteLine = JournalLine.maxLineBytes(options);
    this.sync = options.durability() == Durability.SYNC;
    this.forces = new ForceGroup(sync, () -> meter.journalForced());
    // A holder of the update turn waits for its batch's force; the batch's callers are woken
    // by the thread that completes it: each is woken once and finds its commit durable.
    this.updateTurn = new UpdateTurn(forces::awaitWritten);
    this.journal = new JournalFiles(dir.resolve("journal"), root, limits);
    this.commands = new CommandIndex(dir.resolve("commands"));
    this.reader = new LedgerReader(root, journal, stateFile, limits);
    this.endProbe = new JournalEndProbe(journal);
    this.growth = new JournalGrowth(journal, stateFile, reader);
  }

  @Override
  public String rootId() {
    return root;
  }

  /** Sets what is told of each durable commit ({@link CommitListener}); never throws. */
  void listen(CommitListener committed) {
    this.listener = committed;
  }

  /** Sets what counts this ledger's writes, for metrics; never throws. */
  void meter(WriteMeter writes) {
    this.meter = writes;
  }

  // ---------------------------------------------------------------- reader path

  @Override
  public Optional<StoredState> read() {
    return reader.read();
  }

  @Override
  public boolean exists() {
    reader.refuseLinks();
    return reader.exists();
  }

  @Override
  public Optional<LedgerHead> head() {
    return reader.head();
  }

  @Override
  public EventPage events(Cursor after, int limit) {
    return reader.events(after, limit);
  }

  @Override
  public Stream<Event> replay(Cursor after) {
    return reader.replay(after);
  }

  @Override
  public List<CursoredEvent> eventsWithCursors(Cursor after, int limit) {
    return reader.eventsWithCursors(after, limit);
  }

  @Override
  public CommitWatch watchCommits() {
    return new JournalWatch(signal, journal.dir());
  }

  @Override
  public Optional<CommitResult> command(String publicCommandId) {
    return reader.command(publicCommandId, commands);
  }

  @Override
  public long firstRetainedSequence() {
    return reader.firstRetainedSequence();
  }

  // ---------------------------------------------------------------- writer path

  @Override
  public CommitResult commit(CommitRequest request) {
    return append(request).awaitDurable();
  }

  @Override
  public PendingCommit append(CommitRequest request) {
    if (readOnlyStore != null) {
      throw new ReadOnlyStoreException(readOnlyStore, root);
    }
    Written written;
    try {
      written = commitUnderLock(request);
    } finally {
      // After the lock is released: this may park other ledgers, taking their locks.
      openWriters.committed(this);
    }
    return pending(written.results().get(0), written.ticket());
  }

  @Override
  public <T> T inUpdateTurn(Duration patience, Supplier<T> attempt) {
    return updateTurn.run(patience, attempt);
  }

  /** A written commit that is acknowledged once {@code ticket} is durable. */
  private PendingCommit pending(CommitResult result, long ticket) {
    return new PendingCommit() {
      @Override
      public CommitResult result() {
        return result;
      }

      @Override
      public CommitResult awaitDurable() {
        awaitForced(ticket, result.revision());
        return result;
      }
    };
  }

  private Written commitUnderLock(CommitRequest request) {
    checkNotFailed();
    boolean linksChecked = ensureDirectories();
    retainLockChannel();
    CommitResult result;
    long ticket;
    try (FileLocks.Held held = lockForWrite(true)) {
      checkNotFailed();
      Tail t = currentTail(Tail.Holds.STATE, linksChecked);
      if (request.publicCommandId() != null) {
        CommitResult replay = replayCommand(t, request);
        if (replay != null) {
          forceThrough(t, replay.revision());
          return new Written(List.of(replay), 0);
        }
      }
      if (request.expectedRevision() != t.revision) {
        throw new RevisionConflictException(root, request.expectedRevision(), t.revision);
      }
      CommitRecord record = CommitRecord.next(root, t.revision, t.nextSequence, t.state,
          request, options.clock().instant());
      // A whole-state record is about the state's size: the line's buffer holds that much.
      CanonicalWriter out = lineBuffer(record.state() != null ? request.stateBytes() : 0);
      long offset;
      try {
        JournalLine.encodeInto(out, record, forcedThrough(t));
        if (out.size() > maxWriteLine) {
          throw new LimitExceededException(root, "commit record", maxWriteLine, out.size());
        }
        held.verify();
        // The buffer is read to its end here, before any caller's code (a listener) runs.
        offset = append(t, out.array(), out.size(), record.revision());
      } finally {
        if (out.array().length > KEPT_LINE_BUFFER) {
          // A line longer than its hint (large events) grew the kept buffer: not kept.
          LINE_BUFFER.remove();
        }
      }
      t.revision = record.revision();
      t.nextSequence = record.nextSequence();
      t.hold(request.state());
      t.stateVersion = record.stateVersion();
      t.updatedAt = record.committedAt();
      if (record.commandId() != null) {
        t.recentCommands.put(record.commandId(), new CommandIndex.Entry(record.commandDigest(),
            record.revision(), t.segment, offset));
      }
      t.sinceCheckpoint++;
      // Published before it is durable, as a reader in another process may see it: a load
      // here that builds on it commits after it, and is acknowledged only after it.
      reader.publish(t);
      CommitResult committed = record.result(CursorCodec.encode(root, record.lastSequence(),
          t.segment, offset), false);
      result = committed;
      // Listeners and followers hear of it once it is durable, in commit order (ForceGroup).
      ticket = forces.written(record.revision(), t.channel, () -> announce(committed));
      if (t.sinceCheckpoint >= options.checkpointInterval()) {
        tryCheckpoint(t);
      }
    }
    // The caller waits outside the lock: the next writer appends while this one waits, and
    // one force covers both.
    return new Written(List.of(result), ticket);
  }

  /**
   * The committing thread's buffer for a journal line, with room for a record whose state or
   * patch takes {@code changeBytes}: a commit writes its line there and appends it from there,
   * instead of a new array per line (grown while written, then copied to its length). Kept
   * per thread, not per ledger (a store may hold many ledgers), and only up to
   * {@link #KEPT_LINE_BUFFER} bytes (one that grew past it while a line was written is dropped
   * after the append); used only between encoding a line and appending it, which runs no
   * caller code.
   */
  private static CanonicalWriter lineBuffer(int changeBytes) {
    int wanted = (int) Math.min(1024L + Math.max(0, changeBytes), 1 << 30);
    CanonicalWriter out = LINE_BUFFER.get();
    if (out == null || out.array().length < wanted) {
      out = new CanonicalWriter(Math.max(wanted, 2048));
      if (out.array().length <= KEPT_LINE_BUFFER) {
        LINE_BUFFER.set(out);
      }
    }
    return out;
  }

  /** The bytes of the line buffer the calling thread keeps, 0 if none (for tests). */
  static int keptLineBufferBytes() {
    CanonicalWriter out = LINE_BUFFER.get();
    return out == null ? 0 : out.array().length;
  }

  /** The largest line buffer a thread keeps (see {@link #lineBuffer}). */
  static final int KEPT_LINE_BUFFER = 64 * 1024;
  private static final ThreadLocal<CanonicalWriter> LINE_BUFFER = new ThreadLocal<>();

  /** Tells the store's listeners and this process's followers of a durable commit. */
  private void announce(CommitResult result) {
    signal.fire();
    listener.committed(result);
  }

  /**
   * What a record written now may claim is durable: with forces, the newest revision this
   * writer knows forced ({@link ForceGroup}); without, every earlier record (there is no
   * promise to keep across a power cut, and the format 2 line is written as before).
   */
  private long forcedThrough(Tail t) {
    return sync ? forces.forced() : t.revision;
  }

  /** Waits until {@code ticket} is durable; a failed force fails the ledger. */
  private void awaitForced(long ticket, long revision) {
    try {
      forces.await(ticket);
    } catch (IOException e) {
      failure = e;
      throw new LedgerIOException("forcing commit record for revision " + revision,
          journal.dir(), e);
    }
  }

  /**
   * Forces the journal under the writer lock if {@code revision} may not be durable yet: a
   * replayed command or a checkpoint must not be acknowledged or written ahead of the journal
   * records they point to.
   */
  private void forceThrough(Tail t, long revision) {
    if (!sync || t.channel == null || forces.forced() >= revision) {
      return;
    }
    FileChannel channel = t.channel;
    try {
      forces.forceNow(() -> channel.force(false), t.revision);
    } catch (IOException e) {
      failure = e;
      throw new LedgerIOException("forcing commit records through revision " + revision,
          journal.segment(t.segment), e);
    }
  }

  private CommitResult replayCommand(Tail t, CommitRequest request) {
    String id = request.publicCommandId();
    CommandIndex.Entry entry = t.recentCommands.get(id);
    if (entry == null) {
      entry = commands.find(id);
    }
    if (entry == null) {
      return null;
    }
    CommitRecord recorded = reader.indexedRecordUnlessRemoved(id, entry);
    if (recorded == null) {
      return reader.removedCommandReplay(id, entry, request.commandDigest());
    }
    if (!recorded.sameCommand(request)) {
      throw new CommandConflictException(root, id, recorded.revision(),
          recorded.intentDigest(), request.commandDigest());
    }
    return reader.replayOf(recorded, entry.segment(), entry.offset());
  }

  /**
   * Writes one line at the journal's end (a new segment's first, forcing the directory);
   * returns the offset it starts at. The line is not forced: the caller reports it to
   * {@link #forces} and waits for a force outside the lock.
   */
  private long append(Tail t, byte[] line, long revision) {
    return append(t, line, line.length, revision);
  }

  /** As {@link #append(Tail, byte[], long)}, for the line held by {@code line[0, length)}. */
  private long append(Tail t, byte[] line, int length, long revision) {
    Path path = null; // the new segment's, once one is started; else named only on failure
    try {
      boolean created = false;
      if (t.channel == null || t.end >= options.segmentBytes()) {
        if (t.channel != null) {
          trimPreallocated(t);
        }
        path = journal.segment(revision);
        FileChannel next = SafeFiles.open(path, Set.of(StandardOpenOption.CREATE_NEW,
            StandardOpenOption.READ, StandardOpenOption.WRITE));
        if (t.channel != null) {
          forces.settle(t.channel);
          t.channel.close();
        }
        t.channel = next;
        t.segment = revision;
        t.end = 0;
        t.allocated = 0;
        t.allocatedExact = true;
        created = true;
      }
      SafeFiles.writeFully(t.channel, ByteBuffer.wrap(line, 0, length), t.end);
      if (sync && t.end + length > t.allocated) {
        // Only a forcing writer gains from preallocated space. Without forces the kernel
        // may write pages back in any order: a power cut could then keep a later record
        // and lose the zeros' overwrite before it, which reads as damage, not as a tail.
        preallocate(t, t.end + length);
      }
      if (sync && created) {
        // The new segment's name before its first record is acknowledged; the record itself,
        // and the file size when the space was extended, are forced by the group's fdatasync
        // (ForceGroup), after the writer lock is released.
        SafeFiles.forceDirectory(journal.dir());
      }
    } catch (IOException e) {
      failure = e;
      throw new LedgerIOException("appending commit record for revision " + revision,
          path != null ? path : journal.segment(t.segment), e);
    }
    long offset = t.end;
    t.end += length;
    meter.journalWritten(length);
    return offset;
  }

  private Tail currentTail() {
    return currentTail(Tail.Holds.STATE);
  }

  private Tail currentTail(Tail.Holds want) {
    return currentTail(want, false);
  }

  /**
   * The writer's tail, caught up with the journal. With {@code want} {@link Tail.Holds#POSITION}
   * (a patch commit), a tail holding the state drops it before catching up and a recovery
   * reads only the checkpoint's header, so that no state is built; with
   * {@link Tail.Holds#STATE}, a recovery folds the state, and a tail holding only its
   * position keeps doing so. With {@code linksChecked}, this commit's
   * {@link #ensureDirectories} has just checked the ledger's directories for links, and a
   * recovery does not check them again.
   */
  private Tail currentTail(Tail.Holds want, boolean linksChecked) {
    try {
      Tail t = tail;
      boolean undisturbed = tailUndisturbed;
      if (t != null && t.parked) {
        t = unpark(t);
        undisturbed = false;
      }
      if (t != null) {
        if (want == Tail.Holds.POSITION) {
          t.dropState();
        }
        if (t.channel == null) {
          if (!Files.exists(journal.segment(1))) {
            return t;
          }
        } else if (undisturbed) {
          // Nobody took the lock since this writer left the tail current: no record, roll
          // or trim of another writer can follow it (see FileLocks.Held#undisturbedSince).
          return current(t);
        } else {
          int next = probe(t);
          // A writer that starts a new segment first cuts the zeros after the last record of
          // this one (see append): zeros at this writer's end, like another record there, say
          // without a stat whether the next segment may exist.
          boolean rolled = (next == END_OF_FILE || next == SHORTER)
              && t.segment != t.revision + 1 && Files.exists(journal.segment(t.revision + 1));
          if (!rolled && (next == END_OF_FILE || next == 0)) {
            if (next == END_OF_FILE) {
              t.allocated = t.end; // another store in this or another process trimmed it
              t.allocatedExact = true;
            } else {
              t.allocatedExact = false; // zeros, perhaps more than this writer's
            }
            return current(t);
          }
          if (next != SHORTER || rolled) {
            advance(t);
            forceForeign(t);
            return current(t);
          }
        }
        closeChannel(t);
        tail = null;
      }
      if (!linksChecked) {
        reader.refuseLinks();
      }
      t = reader.start(want == Tail.Holds.STATE ? reader.readCheckpoint()
          : reader.readCheckpointHeader());
      if (want == Tail.Holds.POSITION) {
        t.dropState(); // a retention marker's base state, when no checkpoint exists
      }
      t.holds = want;
      // As after parking: a ledger opened for one commit writes no zeros for it (see
      // preallocate); a ledger that keeps committing doubles up to the window.
      t.window = 0;
      Files.deleteIfExists(SafeFiles.tempSibling(stateFile));
      commands.removeTemp();
      // A forcing writer writes a checkpoint (or a retention marker) only once the journal
      // through its revision is forced: what it covers needs no force now.
      long durable = t.revision;
      advance(t);
      boolean forced = false;
      if (t.channel != null) {
        // Zeros left by a crashed or concurrent writer may sit in large folios (read ahead
        // since): cut them, and preallocate afresh with the next commit.
        forced = trimPreallocated(t, t.allocated); // advance just read the size
        if (sync && !forced && t.revision > durable) {
          // Records after the checkpoint, which a killed writer may have left unforced:
          // forced before a record written after them says they are durable (see
          // forcedThrough). A journal that ends at its checkpoint (a store closed cleanly)
          // costs no force: that force, as long as a commit's own, made every random
          // commit on an idle ledger cost two.
          t.channel.force(false);
        }
      }
      forces.reset(t.revision);
      tail = t;
      return current(t);
    } catch (IOException e) {
      throw new LedgerIOException("recovering journal", journal.dir(), e);
    }
  }

  /**
   * Notes that {@code t}, the writer's tail, is current under the lock held now: until
   * another holder takes the lock, every change to the journal is this writer's own, made
   * to the tail as it writes (or failing the ledger).
   */
  private Tail current(Tail t) {
    tailCurrentUnder = lockAcquisition;
    return t;
  }

  /**
   * Records the ledger lock just taken: whether the tail is current without a look at the
   * journal ({@link #tailUndisturbed}). Every holder of the lock in this store calls it
   * before it reads or writes the tail.
   */
  private void took(FileLocks.Held held) {
    tailUndisturbed = tail != null && !tail.parked && held.undisturbedSince(tailCurrentUnder);
    lockAcquisition = held.acquisition();
  }

  /**
   * Forces the records another writer (another store or process) appended, which this writer
   * just read, so that its next record may say every record before it is durable. That writer
   * forces them too, before it acknowledges them; this force only costs when writers of
   * several stores take turns.
   */
  private void forceForeign(Tail t) throws IOException {
    if (sync && t.channel != null && forces.forced() < t.revision) {
      FileChannel channel = t.channel;
      forces.forceNow(() -> channel.force(false), t.revision);
    }
  }

  /**
   * Replays into {@code t} every record after its position; cuts a torn tail. A recovery
   * ({@code t} without a channel) opens its segment once, for writing, and checks the
   * position, scans and keeps writing through that channel: one open and one {@code fstat}
   * where a reopened ledger's first commit used to open the segment three times.
   */
  private void advance(Tail t) throws IOException {
    FileChannel opened = null;
    long size = -1;
    if (t.channel == null) {
      try {
        opened = SafeFiles.open(journal.segment(t.segment), Set.of(StandardOpenOption.READ,
            StandardOpenOption.WRITE));
      } catch (NoSuchFileException e) {
        reader.missingSegment(t);
        return;
      }
    } else if (!Files.exists(journal.segment(t.segment))) {
      reader.missingSegment(t);
      return;
    }
    long cut;
    long segment;
    try {
      if (opened != null) {
        size = opened.size();
        reader.checkPosition(t, opened, size);
      } else {
        reader.checkPosition(t);
      }
      try (JournalScanner scan = opened != null ? reader.scanner(t, opened, size)
          : reader.scanner(t)) {
        PositionedRecord r;
        while ((r = scan.next()) != null) {
          t.apply(r, journal, true);
        }
        segment = scan.segment();
        t.end = scan.end();
        cut = scan.tornAt();
      }
    } catch (IOException | RuntimeException e) {
      if (opened != null) {
        try {
          opened.close();
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
    if (opened != null && segment == t.segment) {
      t.channel = opened; // under the lock its size is still the one read above
    } else if (t.channel == null || segment != t.segment) {
      if (opened != null) {
        opened.close();
      }
      closeChannel(t);
      t.channel = SafeFiles.open(journal.segment(segment), Set.of(StandardOpenOption.READ,
          StandardOpenOption.WRITE));
      t.segment = segment;
      size = -1;
    }
    if (cut >= 0) {
      LOG.warn("Ledger '{}': cutting torn tail of {} at offset {} ({} bytes)", root,
          journal.segment(segment), cut, t.channel.size() - cut);
      t.channel.truncate(cut);
      if (sync) {
        t.channel.force(true);
      }
      size = -1;
    }
    t.allocated = size >= 0 ? size : t.channel.size();
    t.allocatedExact = true;
  }

  /**
   * Writes zeros from {@code from} to {@link JournalFiles#PREALLOCATE_BYTES} past it (rounded
   * up to a page), forced with the record they follow. One page per write: the page cache
   * sizes a folio by the write that creates it, and a commit that dirties a byte of a large
   * folio writes the whole folio back (measured: one 128 KiB write of zeros made every later
   * commit write 128 KiB; page-sized writes keep it at one page). A writer back from
   * {@linkplain #park parking} or from a recovery writes no zeros at its first extension (the
   * record alone extends the file, as an append without preallocation does), then one page,
   * doubling the window at each extension (see {@link Tail#window}): a ledger committed once
   * in a while should not preallocate per commit only to have the zeros cut when it is parked
   * again. Measured with many ledgers committed in random order: one page of zeros after the
   * record often reached into a second block, so each such commit made the file system
   * allocate a block (and write two pages) for its {@code fdatasync}, and parking free it
   * again with a truncate.
   */
  private static void preallocate(Tail t, long from) throws IOException {
    if (t.window == 0) {
      t.window = PAGE;
      t.allocated = from; // the record just written ends the file
      return;
    }
    long to = (from + t.window + PAGE - 1) / PAGE * PAGE;
    t.window = Math.min(JournalFiles.PREALLOCATE_BYTES, t.window * 2);
    ByteBuffer zeros = ByteBuffer.allocate(PAGE);
    for (long at = from; at < to; at = (at / PAGE + 1) * PAGE) {
      zeros.clear().limit((int) (Math.min(to, (at / PAGE + 1) * PAGE) - at));
      SafeFiles.writeFully(t.channel, zeros, at);
    }
    t.allocated = to;
  }

  private static final int PAGE = 4096;
  private static final int END_OF_FILE = -1;
  private static final int SHORTER = -2;

  /**
   * What follows the writer's end in its segment: {@link #END_OF_FILE}, the byte there (0 for
   * preallocated space, anything else if another process wrote a record), or {@link #SHORTER}
   * if the file no longer ends with the writer's last newline there. One {@code pread}: the
   * writer never asks for the file's size, because an {@code fstat} between a write and an
   * {@code fdatasync} costs far more than its own time (see FileLocks).
   */
  private static int probe(Tail t) throws IOException {
    ByteBuffer bytes = ByteBuffer.allocate(2);
    long from = t.end == 0 ? 0 : t.end - 1;
    while (bytes.hasRemaining() && t.channel.read(bytes, from + bytes.position()) > 0) {
      // at most two reads
    }
    int read = bytes.position();
    if (t.end > 0) {
      if (read == 0 || bytes.get(0) != '\n') {
        return SHORTER;
      }
      return read == 1 ? END_OF_FILE : bytes.get(1) & 0xff;
    }
    return read == 0 ? END_OF_FILE : bytes.get(0) & 0xff;
  }

  /**
   * Cuts the zero bytes preallocated after the last record of {@code t}'s segment, so that a
   * full or closed segment ends with its last newline. Only zeros beyond committed records
   * are cut, so a crash at any point leaves a valid journal.
   */
  private boolean trimPreallocated(Tail t) throws IOException {
    return trimPreallocated(t, t.channel.size());
  }

  /** As {@link #trimPreallocated(Tail)}, with the segment's size known to be {@code size}. */
  private boolean trimPreallocated(Tail t, long size) throws IOException {
    FileChannel channel = t.channel;
    boolean forced = false;
    if (size > t.end) {
      channel.truncate(t.end);
      if (sync) {
        // Through the group: exclusive with a leader's force, and it makes every record of
        // the segment durable (a roll forces the full segment before the next one exists).
        forces.forceNow(() -> channel.force(true), t.revision);
        forced = true;
      }
    } else if (sync && t.trimUnforced) {
      // parking cut zeros without a force; a full segment needs it
      forces.forceNow(() -> channel.force(true), t.revision);
      forced = true;
    }
    t.trimUnforced = false;
    t.allocated = t.end;
    t.allocatedExact = true;
    return forced;
  }

  /**
   * Cuts the preallocated zeros of a writer being parked, without a force: until a force, a
   * crash may bring the zeros back, and zeros after the last record of the last segment are
   * what every reader and recovery accept as its end. The next commit's {@code fdatasync}
   * makes the new size durable; a later trim that finds nothing to cut still forces (see
   * {@link #trimPreallocated}), so a full segment never keeps zeros before the next one.
   */
  private void trimForParking(Tail t) throws IOException {
    // The size this writer tracked, when it is exact: an fstat here runs between the
    // committing writer's write and its fdatasync, where it costs more than its own time.
    long size = t.allocatedExact ? t.allocated : t.channel.size();
    if (size > t.end) {
      t.channel.truncate(t.end);
      t.trimUnforced = sync;
    }
    t.allocated = t.end;
    t.allocatedExact = true;
  }

  private void tryCheckpoint(Tail t) {
    try {
      checkpoint(t);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Ledger '{}': checkpoint at revision {} failed; retrying at the next commit",
          root, t.revision, e);
    }
  }

  private void checkpoint(Tail t) throws IOException {
    if (t.revision == 0) {
      return;
    }
    // The checkpoint and the command index point into the journal: never ahead of its force.
    forceThrough(t, t.revision);
    commands.write(t.recentCommands, sync);
    if (t.holds == Tail.Holds.POSITION) {
      // A patch log's state.json is its caller's (PatchLog.checkpoint): only the command
      // index entries, so that a retried command stays one file read away.
      t.recentCommands.clear();
      t.sinceCheckpoint = 0;
      return;
    }
    Checkpoint checkpoint = new Checkpoint(root, t.revision, t.updatedAt, t.nextSequence,
        t.segment, t.end, t.state, t.stateVersion);
    SafeFiles.replace(stateFile, checkpoint.encode(), sync);
    meter.checkpointWritten();
    t.recentCommands.clear();
    t.sinceCheckpoint = 0;
  }

  // ---------------------------------------------------------------- patch log

  @Override
  public Optional<StoredState> checkpoint() {
    viewRemoval = FileLocks.removal(lockFile);
    Checkpoint c = reader.readCheckpoint();
    if (c == null) {
      return Optional.empty();
    }
    markCheckpoint(c);
    return Optional.of(new StoredState(c.state(), c.revision(), c.updatedAt(),
        c.stateVersion()));
  }

  /** The checkpoint read whole into one array, its state found and checked, not built. */
  @Override
  public Optional<RawState> rawCheckpoint() {
    viewRemoval = FileLocks.removal(lockFile);
    Checkpoint.Raw raw = reader.readRawCheckpoint();
    if (raw == null) {
      return Optional.empty();
    }
    Checkpoint c = raw.header();
    markCheckpoint(c);
    return Optional.of(new RawState(raw.bytes(), raw.stateOffset(), raw.stateLength(),
        c.revision(), c.updatedAt(), c.stateVersion(), stateFile));
  }

  /**
   * Offers the position of a checkpoint just read as a mark, once it proves to be a record
   * boundary of a segment that exists (the check a scan from the checkpoint makes), so that
   * the caller's {@code commitsAfter} of its revision, the next step of a cold open, reads
   * neither the checkpoint again nor anything before its position.
   */
  private void markCheckpoint(Checkpoint c) {
    Tail t = Tail.start(c);
    try {
      if (!Files.exists(journal.segment(t.segment))) {
        return;
      }
      reader.checkPosition(t);
    } catch (IOException | CorruptLedgerException e) {
      // Not a mark; commitsAfter's scan from the checkpoint reports what is wrong.
      return;
    }
    offerMark(new PatchRecords.Mark(c.revision(), c.nextSequence(), c.segment(), c.offset()));
  }

  @Override
  public Stream<LoggedCommit> commitsAfter(long revision) {
    Preconditions.checkArgument(revision >= 0, "revision must be >= 0: %s", revision);
    checkView(revision);
    return PatchRecords.commitsAfter(reader, journal, endProbe, growth::header, revision,
        patchMark,
        this::offerMark, true);
  }

  /**
   * The records are decoded for their state or patch only: the events of each line are
   * stepped over, not built (see {@code PatchRecordReader}).
   */
  @Override
  public Stream<LoggedCommit> patchesAfter(long revision) {
    Preconditions.checkArgument(revision >= 0, "revision must be >= 0: %s", revision);
    checkView(revision);
    return PatchRecords.commitsAfter(reader, journal, endProbe, growth::header, revision,
        patchMark,
        this::offerMark, false);
  }

  /**
   * Binds the view a caller opens ({@code revision} 0, or {@link #checkpoint}) to the ledger
   * as it is now, and refuses a later catch-up of a view opened before a removal of the
   * ledger through this JVM (a delete or an archive by any store, perhaps followed by a new
   * ledger of the same name): its revision belongs to a ledger that no longer exists, and
   * folding the new ledger's commits onto it would be wrong, as PostgreSQL's generation
   * check refuses it there.
   *
   * @throws RevisionConflictException if the ledger was removed since the view was opened;
   *     the caller opens its view afresh
   */
  private void checkView(long revision) {
    long now = FileLocks.removal(lockFile);
    if (revision == 0) {
      viewRemoval = now;
      return;
    }
    long bound = viewRemoval;
    if (bound != -1 && bound != now) {
      throw new RevisionConflictException(root, revision,
          head().map(LedgerHead::revision).orElse(0L));
    }
  }

  /** Drops the mark and the channel kept to check it: the journal is closed or gone. */
  private void forgetMark() {
    patchMark = null;
    endProbe.release();
  }

  /** Keeps {@code mark} unless a newer one is kept; a stale one only costs a longer scan. */
  private void offerMark(PatchRecords.Mark mark) {
    PatchRecords.Mark kept = patchMark;
    if (kept == null || kept.revision() <= mark.revision()) {
      patchMark = mark;
    }
  }

  @Override
  public CommitResult commitPatch(PatchRequest request) {
    return appendPatch(request).awaitDurable();
  }

  @Override
  public PendingCommit appendPatch(PatchRequest request) {
    Preconditions.checkNotNull(request, "request");
    Written written = writePatches(List.of(request), true);
    return pending(written.results().get(0), written.ticket());
  }

  @Override
  public List<CommitResult> commitPatches(List<PatchRequest> batch) {
    PatchRecords.checkBatch(batch);
    Written written = writePatches(List.copyOf(batch), false);
    List<CommitResult> results = written.results();
    awaitForced(written.ticket(), results.get(results.size() - 1).revision());
    return results;
  }

  /**
   * Records written by one commit or patch commit, and the {@link ForceGroup} ticket that
   * makes the last of them durable (0 for a replayed command, durable already).
   */
  private record Written(List<CommitResult> results, long ticket) {}

  /**
   * The writer path for patches: lock, current tail (holding only its position), commands,
   * revision and limits for every request, then the records, written one after another and
   * not forced: the caller waits for the {@link ForceGroup} force that covers the last one,
   * after the lock is released, so that one force covers this batch and whatever other
   * writers of the ledger in this store write meanwhile. With {@code replay} (a single
   * request), a command recorded with the same digest returns its recorded result; in a
   * batch, any recorded command refuses the batch. If a write fails, the ledger is failed (as
   * for {@link #commit}) and the caller re-reads after reopening; the records before it may
   * or may not be durable.
   */
  private Written writePatches(List<PatchRequest> batch, boolean replay) {
    if (readOnlyStore != null) {
      throw new ReadOnlyStoreException(readOnlyStore, root);
    }
    try {
      return writePatchesUnderLock(batch, replay);
    } finally {
      // As for commit: after the lock is released, so that parking others cannot deadlock.
      openWriters.committed(this);
    }
  }

  private Written writePatchesUnderLock(List<PatchRequest> batch, boolean replay) {
    checkNotFailed();
    ensureDirectories();
    retainLockChannel();
    try (FileLocks.Held held = lockForWrite(true)) {
      checkNotFailed();
      Tail t = currentTail(Tail.Holds.POSITION);
      for (PatchRequest request : batch) {
        String id = request.publicCommandId();
        CommandIndex.Entry entry = id == null ? null : recordedCommand(t, id);
        if (entry != null) {
          CommitRecord recorded = reader.indexedRecord(id, entry);
          if (replay && recorded.intentDigest().equals(request.commandDigest())) {
            forceThrough(t, recorded.revision());
            return new Written(List.of(reader.replayOf(recorded, entry.segment(),
                entry.offset())), 0);
          }
          throw new CommandConflictException(root, id, recorded.revision(),
              recorded.intentDigest(), request.commandDigest());
        }
      }
      long expected = batch.get(0).expectedRevision();
      if (expected != t.revision) {
        throw new RevisionConflictException(root, expected, t.revision);
      }
      List<CommitRecord> records = PatchRecords.build(root, t.revision, t.nextSequence, batch,
          options.clock().instant());
      long forcedThrough = forcedThrough(t);
      byte[][] lines = new byte[records.size()][];
      for (int i = 0; i < lines.length; i++) {
        // Records after the first are written before it is forced: they say so, and what a
        // power cut leaves of the batch is a prefix of whole records (see CommitRecord).
        lines[i] = JournalLine.encode(records.get(i), forcedThrough);
        if (lines[i].length > maxWriteLine) {
          throw new LimitExceededException(root, "commit record", maxWriteLine,
              lines[i].length);
        }
      }
      held.verify();
      List<CommitResult> results = new ArrayList<>(records.size());
      long ticket = 0;
      for (int i = 0; i < lines.length; i++) {
        CommitRecord record = records.get(i);
        long offset = append(t, lines[i], record.revision());
        t.revision = record.revision();
        t.nextSequence = record.nextSequence();
        t.stateVersion = record.stateVersion();
        t.updatedAt = record.committedAt();
        if (record.commandId() != null) {
          t.recentCommands.put(record.commandId(), new CommandIndex.Entry(
              record.commandDigest(), record.revision(), t.segment, offset));
        }
        t.sinceCheckpoint++;
        CommitResult result = record.result(CursorCodec.encode(root, record.lastSequence(),
            t.segment, offset), false);
        ticket = forces.written(record.revision(), t.channel, () -> announce(result));
        results.add(result);
      }
      patchEnd = new JournalGrowth.Position(t.segment, t.end);
      patchMark = new PatchRecords.Mark(t.revision, t.nextSequence, t.segment, t.end);
      endProbe.keep();
      // No reader.publish: the read cache holds states and this commit built none; the next
      // load reads forward from the last published position and folds the patches.
      if (t.sinceCheckpoint >= options.checkpointInterval()) {
        tryCheckpoint(t);
      }
      return new Written(results, ticket);
    }
  }

  /** Where {@code id}'s record is, from this writer's recent commands or the index; or null. */
  private CommandIndex.Entry recordedCommand(Tail t, String id) {
    CommandIndex.Entry entry = t.recentCommands.get(id);
    return entry != null ? entry : commands.find(id);
  }

  @Override
  public boolean checkpoint(long revision, JsonNode state, int stateVersion) {
    Preconditions.checkNotNull(state, "state");
    return writeCheckpoint(revision, stateVersion, state, Checkpoint::encodeCompact);
  }

  @Override
  public boolean takesCheckpointBytes() {
    return true;
  }

  /**
   * The state's canonical bytes are copied into the checkpoint as they are (see
   * {@link Checkpoint#encodeCompact(byte[])}): the same file the tree form writes.
   */
  @Override
  public boolean checkpointBytes(long revision, byte[] state, int stateVersion) {
    Preconditions.checkNotNull(state, "state");
    return writeCheckpoint(revision, stateVersion, null, c -> c.encodeCompact(state));
  }

  /** Writes the checkpoint {@code encoder} encodes, built with {@code state} (or none). */
  private boolean writeCheckpoint(long revision, int stateVersion, JsonNode state,
      java.util.function.Function<Checkpoint, byte[]> encoder) {
    Preconditions.checkArgument(revision >= 1, "revision must be >= 1: %s", revision);
    Preconditions.checkArgument(stateVersion >= 0, "stateVersion must be >= 0: %s",
        stateVersion);
    if (readOnlyStore != null) {
      throw new ReadOnlyStoreException(readOnlyStore, root);
    }
    checkNotFailed();
    if (!reader.exists()) {
      return false;
    }
    ensureDirectories();
    retainLockChannel();
    try (FileLocks.Held held = lockForWrite(false)) {
      if (held == null) {
        return false; // removed meanwhile
      }
      checkNotFailed();
      Tail t = currentTail(Tail.Holds.POSITION);
      if (t.revision != revision) {
        return false;
      }
      Preconditions.checkArgument(stateVersion == t.stateVersion,
          "ledger '%s' revision %s was committed with state version %s, not %s", root,
          revision, t.stateVersion, stateVersion);
      Checkpoint checkpoint = new Checkpoint(root, t.revision, t.updatedAt, t.nextSequence,
          t.segment, t.end, state, stateVersion);
      byte[] encoded = encoder.apply(checkpoint);
      // Readers bound state.json by the store's recorded state limit (StoreLimits): a larger
      // one would be unreadable.
      long max = 2L * options.maxStateBytes() + 64 * 1024;
      if (encoded.length > max) {
        throw new LimitExceededException(root, "checkpoint", max, encoded.length);
      }
      held.verify();
      forceThrough(t, revision);
      try {
        commands.write(t.recentCommands, sync);
        SafeFiles.replace(stateFile, encoded, sync);
        meter.checkpointWritten();
      } catch (IOException e) {
        throw new LedgerIOException("writing checkpoint of revision " + revision, stateFile,
            e);
      }
      t.recentCommands.clear();
      t.sinceCheckpoint = 0;
      growth.written(checkpoint);
      return true;
    }
  }

  @Override
  public long journalBytesSinceCheckpoint() {
    return growth.bytesSinceCheckpoint(patchEnd);
  }

  /**
   * Applies {@code policy} under the writer lock ({@link LedgerRetention}), moving removed
   * segments into {@code archive} if it is not null.
   */
  RetentionResult applyRetention(RetentionPolicy policy, Path archive) {
    if (readOnlyStore != null) {
      throw new ReadOnlyStoreException(readOnlyStore, root);
    }
    checkNotFailed();
    reader.refuseLinks();
    if (!reader.exists()) {
      throw new LedgerNotFoundException(root);
    }
    retainLockChannel();
    try (FileLocks.Held held = lockForWrite(false)) {
      if (held == null) {
        throw new LedgerNotFoundException(root);
      }
      checkNotFailed();
      Tail t = currentTail();
      if (t.revision == 0) {
        throw new LedgerNotFoundException(root);
      }
      held.verify();
      return LedgerRetention.apply(root, dir, journal, reader, t, policy,
          options.clock().instant(), archive, sync, () -> checkpoint(t));
    } catch (IOException e) {
      throw new LedgerIOException("applying retention to ledger '" + root + "'", dir, e);
    }
  }

  /**
   * Makes the ledger's directories if this writer has not yet, each step checked to be no
   * link ({@code lstat}); returns whether it did so now, in which case the recovery that
   * follows in the same commit need not check the same two directories again.
   */
  private boolean ensureDirectories() {
    if (directoriesMade) {
      return false;
    }
    try {
      // Never through a link: the store checked its ledgers directory; below it, each step.
      SafeFiles.createDirectoriesBelow(dir.getParent(), journal.dir(), sync);
      directoriesMade = true;
      return true;
    } catch (IOException e) {
      throw new LedgerIOException("creating ledger directory", dir, e);
    }
  }

  private void checkNotFailed() {
    Throwable f = failure;
    if (f == null) {
      f = forces.failure();
    }
    if (f != null) {
      throw new LedgerFailedException(root, f);
    }
  }

  /**
   * Writes a final checkpoint if this store committed since the last one, and releases the
   * segment channel. Called by the store's close, with no operation in flight.
   */
  void close() {
    if (tail == null) {
      forgetMark(); // a tail dropped after a probe kept a channel (a cut or replaced journal)
      releaseLockChannel();
      return;
    }
    FileLocks.Held held = null;
    try {
      held = lockForWrite(false, false); // writes its checkpoint and trims without a verify
      if (held != null && tail != null && failure == null) {
        Tail t = currentTail(tail.holds);
        if (t.sinceCheckpoint > 0) {
          checkpoint(t);
        }
        if (t.channel != null) {
          trimPreallocated(t);
        }
      }
    } catch (IOException e) {
      throw new LedgerIOException("writing the final checkpoint and trimming the journal",
          dir, e);
    } finally {
      if (tail != null) {
        closeChannel(tail);
        tail = null;
      }
      reader.clearCache();
      forgetMark();
      // Let go of the kept channel first, so that releasing this last lock clears the holder
      // line and closes it: a closed store's lock file is empty.
      releaseLockChannel();
      if (held != null) {
        held.close();
      }
    }
  }

  /**
   * Gives back this writer's open files while it is idle: takes the ledger's lock without
   * waiting, catches up with other processes' commits if any, cuts the preallocated zeros (as
   * {@link #close} does, but without a force: see {@link #trimForParking}), closes the
   * segment channel and lets go of the kept lock-file channel. The tail stays in memory,
   * marked parked, so the next commit reopens its segment and checks that it is still the
   * segment it parked on (its first record's checksum) and that nothing was written after
   * it (see {@link #unpark}) instead of replaying the journal. No checkpoint
   * is written: commits since the last one stay where a crash would leave them, in the
   * journal.
   *
   * @return false if the lock is busy (a commit of this or another process is in flight), and
   *     nothing was done; true if the ledger holds no open file now
   */
  boolean park() {
    FileLocks.Held held;
    try {
      held = FileLocks.acquire(lockFile, java.time.Duration.ZERO);
    } catch (dev.ledger.core.LockTimeoutException e) {
      return false;
    } catch (RuntimeException e) {
      LOG.warn("Ledger '{}': could not lock it to park it; it stays open", root, e);
      return false;
    }
    try {
      took(held);
      Tail t = tail;
      if (t != null && t.channel != null) {
        parkTail(t);
      }
      endProbe.release(); // the mark stays; its checks open the segment for each read
      return true;
    } finally {
      // The kept channel goes first, so that this release closes the lock file. Unlike close,
      // it leaves this process's holder line: the next commit here finds it and writes
      // nothing, where emptying and rewriting it made two lock-file size changes per round
      // trip, riding the fdatasync of the commits that parked and unparked it.
      releaseLockChannel();
      held.closeKeepingHolderLine();
    }
  }

  // ---------------------------------------------------------------- delete and archive

  /**
   * Takes the writer lock. The ledger's directory may have been removed under this store
   * since its last commit (a delete or an archive, by this or another store or process):
   * with {@code recreate} its directories are made again (a commit then starts a new
   * ledger), without it null is returned. If the lock file is another file than the one this
   * writer's cached tail was read under, the ledger was removed (and perhaps recreated)
   * meanwhile: the tail and the read cache are dropped, so that nothing is ever appended to,
   * or checkpointed from, a ledger that no longer has this name.
   */
  private FileLocks.Held lockForWrite(boolean recreate) {
    return lockForWrite(recreate, true);
  }

  /**
   * As {@link #lockForWrite(boolean)}; with {@code verifies}, the caller calls
   * {@link FileLocks.Held#verify} before it writes anything, so the lock may leave the check
   * of the lock file's name to it ({@link FileLocks#acquire(Path, Duration, long)}).
   */
  private FileLocks.Held lockForWrite(boolean recreate, boolean verifies) {
    FileLocks.Held held;
    long since = verifies && tail != null && !tail.parked ? tailCurrentUnder : 0;
    try {
      held = FileLocks.acquire(lockFile, options.lockTimeout(), since);
    } catch (LedgerIOException e) {
      if (!(e.getCause() instanceof NoSuchFileException) || Files.isDirectory(dir)) {
        throw e;
      }
      if (!recreate) {
        return null;
      }
      directoriesMade = false;
      ensureDirectories();
      held = FileLocks.acquire(lockFile, options.lockTimeout());
    }
    Object key = held.lockedFileKey();
    long removal = held.removal();
    if (tail != null && (!Objects.equals(key, tailLockKey) || removal != tailRemoval)) {
      forgetReplaced();
    }
    tailLockKey = key;
    tailRemoval = removal;
    took(held);
    return held;
  }

  /**
   * Runs {@code removal} on the ledger's directory under the writer lock, waiting up to the
   * lock timeout, then forgets everything this backend cached of the ledger (its tail, read
   * cache and kept lock channel), so that every view of it in this store sees the ledger as
   * the disk has it: none, once the removal moved the directory away.
   *
   * @throws LedgerBusyException if another writer held the lock past the deadline
   * @throws ReadOnlyStoreException if the store is read-only
   */
  <T> T removeUnderLock(String operation, Removal<T> removal) {
    if (readOnlyStore != null) {
      throw new ReadOnlyStoreException(readOnlyStore, root);
    }
    SafeFiles.refuseLink(dir);
    FileLocks.Held held;
    try {
      held = FileLocks.acquire(lockFile, options.lockTimeout());
    } catch (LockTimeoutException e) {
      throw new LedgerBusyException(root, operation, lockFile, e.holder().orElse(null), e);
    } catch (LedgerIOException e) {
      if (!(e.getCause() instanceof NoSuchFileException) || Files.isDirectory(dir)) {
        throw e;
      }
      return removal.remove(dir, false); // no directory: never committed, or removed already
    }
    try {
      took(held);
      reader.refuseLinks();
      return removal.remove(dir, reader.exists());
    } finally {
      // Once the directory moved, even if a later step of the removal failed, this backend
      // forgets it, and so does every other store of this JVM at its next lock (markRemoved).
      // A refused removal leaves the directory, and this backend, as they were.
      if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
        held.markRemoved();
        if (tail != null) {
          closeChannel(tail);
          tail = null;
        }
        tailLockKey = null;
        reader.clearCache();
        forgetMark(); // marks and ends of the removed journal mean nothing any more
        patchEnd = null;
        directoriesMade = false;
        releaseLockChannel();
      }
      held.close();
    }
  }

  /** Trims and closes {@code t}'s segment; drops the tail if that fails. Under the lock. */
  private void parkTail(Tail t) {
    try {
      if (failure == null) {
        Tail current = currentTail();
        if (current.channel != null) {
          trimForParking(current);
          current.parkedFirstChecksum = current.end == 0 ? null
              : JournalLine.firstChecksum(current.channel);
        }
        t = current;
      }
    } catch (IOException | RuntimeException e) {
      // The next commit recovers from the files, as after a restart.
      LOG.warn("Ledger '{}': trimming the journal while parking failed", root, e);
      closeChannel(t);
      tail = null;
      return;
    }
    closeChannel(t);
    if (failure == null && tail == t) {
      t.parked = true;
    } else {
      tail = null;
    }
  }

  /**
   * Reopens the segment of a parked tail; the probe that follows in {@link #currentTail}
   * checks what other writers did meanwhile. Returns null (recover from the files) if the
   * segment is gone.
   */
  private Tail unpark(Tail t) throws IOException {
    t.parked = false;
    try {
      t.channel = SafeFiles.open(journal.segment(t.segment), Set.of(StandardOpenOption.READ,
          StandardOpenOption.WRITE));
    } catch (java.nio.file.NoSuchFileException e) {
      tail = null;
      return null;
    }
    // The ledger may have been deleted and created again by another process meanwhile, its
    // new lock file taking the old one's identity (the file system reuses a freed inode), so
    // that the lock's check of the file passed: a segment whose first record is not the one
    // this writer parked on is another ledger's, whatever lies at this writer's end. Recover
    // from the files.
    byte[] first = t.parkedFirstChecksum;
    t.parkedFirstChecksum = null;
    if (first != null && !java.util.Arrays.equals(first, JournalLine.firstChecksum(t.channel))) {
      forgetReplaced();
      return null;
    }
    t.allocated = t.end; // parked trimmed it; zeros another writer added are found by the probe
    t.allocatedExact = false; // until that probe
    t.window = 0; // its next commit extends the file by its record alone (see preallocate)
    return t;
  }

  /** What {@link #removeUnderLock} runs with the lock held. */
  @FunctionalInterface
  interface Removal<T> {
    /**
     * Removes (or moves away) the ledger's directory.
     *
     * @param dir the ledger's directory
     * @param existed whether it holds a ledger (a checkpoint or a first segment)
     * @return what the store operation returns
     */
    T remove(Path dir, boolean existed);
  }

  /** Keeps the lock file's channel open while this store writes (see FileLocks.retain). */
  private synchronized void retainLockChannel() {
    if (retained == null) {
      retained = FileLocks.retain(lockFile);
    }
  }

  private synchronized void releaseLockChannel() {
    if (retained != null) {
      retained.close();
      retained = null;
    }
  }


  /**
   * Closes {@code t}'s segment channel, after forcing what this store wrote to it and has not
   * forced yet (its writers may be waiting for that force).
   */
  /**
   * Drops the tail and everything read from the ledger's files: they are another ledger's now
   * (the ledger was removed and perhaps created again since this store last wrote it).
   */
  private void forgetReplaced() {
    LOG.info("Ledger '{}': its directory was replaced since this store last wrote; "
        + "reading it afresh", root);
    closeChannel(tail);
    tail = null;
    reader.clearCache();
    forgetMark();
    patchEnd = null;
  }

  private void closeChannel(Tail t) {
    if (t.channel != null) {
      forces.settle(t.channel);
      try {
        t.channel.close();
      } catch (IOException e) {
        LOG.debug("closing a journal channel failed", e);
      }
      t.channel = null;
    }
  }
}
