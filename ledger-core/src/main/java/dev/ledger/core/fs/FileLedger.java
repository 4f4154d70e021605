package dev.ledger.core.fs;

import dev.ledger.core.CommandConflictException;
import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Durability;
import dev.ledger.core.Event;
import dev.ledger.core.EventPage;
import dev.ledger.core.LedgerBusyException;
import dev.ledger.core.LedgerFailedException;
import dev.ledger.core.LedgerHead;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LimitExceededException;
import dev.ledger.core.LockTimeoutException;
import dev.ledger.core.ReadOnlyStoreException;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.internal.io.FileLocks;
import dev.ledger.core.internal.io.SafeFiles;
import dev.ledger.core.internal.journal.CommitRecord;
import dev.ledger.core.internal.journal.CursorCodec;
import dev.ledger.core.internal.journal.JournalLine;
import dev.ledger.core.internal.journal.PositionedRecord;
import dev.ledger.core.spi.CommitRequest;
import dev.ledger.core.spi.CommitSignal;
import dev.ledger.core.spi.CommitWatch;
import dev.ledger.core.spi.CursoredEvent;
import dev.ledger.core.spi.LedgerBackend;
import dev.ledger.core.spi.StoredState;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
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
 * it runs out; without forces, appending) → {@code force} (the commit point) → every
 * {@code checkpointInterval} commits, write the command index entries and
 * {@code state.json} → unlock. One forced write per commit.
 *
 * <p><b>Reader path.</b> No lock: {@link LedgerReader}, which this writer tells of every
 * commit it makes so that a load in this process costs two {@code stat}s and a one-byte read.
 *
 * <p><b>Failure.</b> An I/O error while appending or forcing poisons the ledger in this store:
 * later writes throw {@link LedgerFailedException} until the store is reopened and recovery
 * reads what is really on disk. A failed checkpoint is logged and retried at the next commit;
 * it never fails a commit that is already durable.
 */
final class FileLedger implements LedgerBackend {
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
  /** The kept lock-file channel, from the first commit until close. */
  private FileLocks.Retained retained;
  private final LedgerReader reader;
  /** Fired once each commit of this store is durable, for followers in this process. */
  private final CommitSignal signal = new CommitSignal();

  /**
   * A ledger in {@code dir}, a directory of the store's {@code ledgers} directory (which the
   * store checked is no symbolic link). Its reads are bounded by {@code limits}, its writes
   * by {@code options}.
   */
  FileLedger(String root, Path dir, LedgerOptions options, StoreLimits limits,
      String readOnlyStore) {
    this.root = root;
    this.readOnlyStore = readOnlyStore;
    this.dir = dir;
    this.lockFile = dir.resolve(".lock");
    this.stateFile = dir.resolve("state.json");
    this.options = options;
    this.maxWriteLine = JournalLine.maxLineBytes(options);
    this.sync = options.durability() == Durability.SYNC;
    this.journal = new JournalFiles(dir.resolve("journal"), root, limits);
    this.commands = new CommandIndex(dir.resolve("commands"));
    this.reader = new LedgerReader(root, journal, stateFile, limits);
  }

  @Override
  public String rootId() {
    return root;
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

  // ---------------------------------------------------------------- writer path

  @Override
  public CommitResult commit(CommitRequest request) {
    if (readOnlyStore != null) {
      throw new ReadOnlyStoreException(readOnlyStore, root);
    }
    checkNotFailed();
    ensureDirectories();
    retainLockChannel();
    try (FileLocks.Held held = lockForWrite(true)) {
      checkNotFailed();
      Tail t = currentTail();
      if (request.publicCommandId() != null) {
        CommitResult replay = replayCommand(t, request);
        if (replay != null) {
          return replay;
        }
      }
      if (request.expectedRevision() != t.revision) {
        throw new RevisionConflictException(root, request.expectedRevision(), t.revision);
      }
      CommitRecord record = CommitRecord.next(root, t.revision, t.nextSequence, t.state,
          request, options.clock().instant());
      byte[] line = JournalLine.encode(record);
      if (line.length > maxWriteLine) {
        throw new LimitExceededException(root, "commit record", maxWriteLine, line.length);
      }
      held.verify();
      long offset = append(t, line, record.revision());
      t.revision = record.revision();
      t.nextSequence = record.nextSequence();
      t.state = request.state();
      t.stateVersion = record.stateVersion();
      t.updatedAt = record.committedAt();
      if (record.commandId() != null) {
        t.recentCommands.put(record.commandId(), new CommandIndex.Entry(record.commandDigest(),
            record.revision(), t.segment, offset));
      }
      t.sinceCheckpoint++;
      reader.publish(t);
      signal.fire();
      if (t.sinceCheckpoint >= options.checkpointInterval()) {
        tryCheckpoint(t);
      }
      return record.result(CursorCodec.encode(root, record.lastSequence(), t.segment, offset),
          false);
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
    CommitRecord recorded = reader.indexedRecord(id, entry);
    if (!recorded.sameCommand(request)) {
      throw new CommandConflictException(root, id, recorded.revision(),
          recorded.intentDigest(), request.commandDigest());
    }
    return reader.replayOf(recorded, entry.segment(), entry.offset());
  }

  /** Appends one line and forces it; returns the offset it starts at. */
  private long append(Tail t, byte[] line, long revision) {
    Path path = journal.segment(t.segment);
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
          t.channel.close();
        }
        t.channel = next;
        t.segment = revision;
        t.end = 0;
        t.allocated = 0;
        created = true;
      }
      SafeFiles.writeFully(t.channel, ByteBuffer.wrap(line), t.end);
      if (sync && t.end + line.length > t.allocated) {
        // Only a forcing writer gains from preallocated space. Without forces the kernel
        // may write pages back in any order: a power cut could then keep a later record
        // and lose the zeros' overwrite before it, which reads as damage, not as a tail.
        preallocate(t, t.end + line.length);
      }
      if (sync) {
        // fdatasync covers the data, and the new file size when the space was extended.
        t.channel.force(false);
        if (created) {
          SafeFiles.forceDirectory(journal.dir());
        }
      }
    } catch (IOException e) {
      failure = e;
      throw new LedgerIOException("appending commit record for revision " + revision, path, e);
    }
    long offset = t.end;
    t.end += line.length;
    return offset;
  }

  private Tail currentTail() {
    try {
      Tail t = tail;
      if (t != null) {
        if (t.channel == null) {
          if (!Files.exists(journal.segment(1))) {
            return t;
          }
        } else {
          int next = probe(t);
          boolean rolled = t.segment != t.revision + 1
              && Files.exists(journal.segment(t.revision + 1));
          if (!rolled && (next == END_OF_FILE || next == 0)) {
            if (next == END_OF_FILE) {
              t.allocated = t.end; // another store in this or another process trimmed it
            }
            return t;
          }
          if (next != SHORTER || rolled) {
            advance(t);
            return t;
          }
        }
        closeChannel(t);
        tail = null;
      }
      reader.refuseLinks();
      t = Tail.start(reader.readCheckpoint());
      Files.deleteIfExists(SafeFiles.tempSibling(stateFile));
      advance(t);
      if (t.channel != null) {
        // Zeros left by a crashed or concurrent writer may sit in large folios (read ahead
        // since): cut them, and preallocate afresh with the next commit.
        trimPreallocated(t);
      }
      tail = t;
      return t;
    } catch (IOException e) {
      throw new LedgerIOException("recovering journal", journal.dir(), e);
    }
  }

  /** Replays into {@code t} every record after its position; cuts a torn tail. */
  private void advance(Tail t) throws IOException {
    if (!Files.exists(journal.segment(t.segment))) {
      reader.missingSegment(t);
      return;
    }
    reader.checkPosition(t);
    long cut;
    long segment;
    try (JournalScanner scan = reader.scanner(t)) {
      PositionedRecord r;
      while ((r = scan.next()) != null) {
        t.apply(r, journal, true);
      }
      segment = scan.segment();
      t.end = scan.end();
      cut = scan.tornAt();
    }
    if (t.channel == null || segment != t.segment) {
      closeChannel(t);
      t.channel = SafeFiles.open(journal.segment(segment), Set.of(StandardOpenOption.READ,
          StandardOpenOption.WRITE));
      t.segment = segment;
    }
    if (cut >= 0) {
      LOG.warn("Ledger '{}': cutting torn tail of {} at offset {} ({} bytes)", root,
          journal.segment(segment), cut, t.channel.size() - cut);
      t.channel.truncate(cut);
      if (sync) {
        t.channel.force(true);
      }
    }
    t.allocated = t.channel.size();
  }

  /**
   * Writes zeros from {@code from} to {@link JournalFiles#PREALLOCATE_BYTES} past it (rounded
   * up to a page), forced with the record they follow. One page per write: the page cache
   * sizes a folio by the write that creates it, and a commit that dirties a byte of a large
   * folio writes the whole folio back (measured: one 128 KiB write of zeros made every later
   * commit write 128 KiB; page-sized writes keep it at one page).
   */
  private static void preallocate(Tail t, long from) throws IOException {
    long to = (from + JournalFiles.PREALLOCATE_BYTES + PAGE - 1) / PAGE * PAGE;
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
  private void trimPreallocated(Tail t) throws IOException {
    if (t.channel.size() > t.end) {
      t.channel.truncate(t.end);
      if (sync) {
        t.channel.force(true);
      }
    }
    t.allocated = t.end;
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
    commands.write(t.recentCommands, sync);
    Checkpoint checkpoint = new Checkpoint(root, t.revision, t.updatedAt, t.nextSequence,
        t.segment, t.end, t.state, t.stateVersion);
    SafeFiles.replace(stateFile, checkpoint.encode(), sync);
    t.recentCommands.clear();
    t.sinceCheckpoint = 0;
  }

  private void ensureDirectories() {
    if (directoriesMade) {
      return;
    }
    try {
      // Never through a link: the store checked its ledgers directory; below it, each step.
      SafeFiles.createDirectoriesBelow(dir.getParent(), journal.dir(), sync);
      directoriesMade = true;
    } catch (IOException e) {
      throw new LedgerIOException("creating ledger directory", dir, e);
    }
  }

  private void checkNotFailed() {
    Throwable f = failure;
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
      releaseLockChannel();
      return;
    }
    FileLocks.Held held = null;
    try {
      held = lockForWrite(false);
      if (held != null && tail != null && failure == null) {
        Tail t = currentTail();
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
      // Let go of the kept channel first, so that releasing this last lock clears the holder
      // line and closes it: an unheld lock file is empty.
      releaseLockChannel();
      if (held != null) {
        held.close();
      }
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
    FileLocks.Held held;
    try {
      held = FileLocks.acquire(lockFile, options.lockTimeout());
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
    if (tail != null && !Objects.equals(key, tailLockKey)) {
      LOG.info("Ledger '{}': its directory was replaced since this store last wrote; "
          + "reading it afresh", root);
      closeChannel(tail);
      tail = null;
      reader.clearCache();
    }
    tailLockKey = key;
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
      reader.refuseLinks();
      return removal.remove(dir, reader.exists());
    } finally {
      // Once the directory moved, even if a later step of the removal failed, this backend
      // forgets it. A refused removal leaves the directory, and this backend, as they were.
      if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
        if (tail != null) {
          closeChannel(tail);
          tail = null;
        }
        tailLockKey = null;
        reader.clearCache();
        directoriesMade = false;
        releaseLockChannel();
      }
      held.close();
    }
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


  private static void closeChannel(Tail t) {
    if (t.channel != null) {
      try {
        t.channel.close();
      } catch (IOException e) {
        LOG.debug("closing a journal channel failed", e);
      }
      t.channel = null;
    }
  }
}
