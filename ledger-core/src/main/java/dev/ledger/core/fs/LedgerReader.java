package dev.ledger.core.fs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.core.CommandConflictException;
import dev.ledger.core.CommitResult;
import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventPage;
import dev.ledger.core.HistoryTruncatedException;
import dev.ledger.core.LedgerHead;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.LedgerNotFoundException;
import dev.ledger.core.internal.io.SafeFiles;
import dev.ledger.core.internal.journal.CommitRecord;
import dev.ledger.core.internal.journal.CursorCodec;
import dev.ledger.core.internal.journal.EventPages;
import dev.ledger.core.internal.journal.JournalLine;
import dev.ledger.core.internal.journal.PositionedRecord;
import dev.ledger.core.internal.journal.RecordSource;
import dev.ledger.core.spi.CursoredEvent;
import dev.ledger.core.spi.StoredState;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The reader path of one ledger: no lock, never half a commit.
 *
 * <p>The latest position this process saw committed (by its writer or an earlier read) is
 * cached with its state: if no record was written after it since (a {@code stat} of the
 * segment, a one-byte read of its preallocated space, and a {@code stat} of the next
 * segment's name), it is the answer; if it has grown, only the new records are applied.
 * Otherwise (first read, or the journal no longer reaches the cached position) read
 * {@code state.json} and apply the records after its position. Reads stop before an incomplete or
 * torn tail. Pages and replays start at the position their cursor's hint names, once the
 * record there proves it. Thread-safe.
 */
final class LedgerReader {
  private final String root;
  private final JournalFiles journal;
  private final Path stateFile;
  private final StoreLimits limits;
  private volatile Published published;

  /** The latest position this process has seen committed, with its state. */
  private record Published(JsonNode state, int stateVersion, long revision, Instant updatedAt,
      long nextSequence, long segment, long end) {}

  LedgerReader(String root, JournalFiles journal, Path stateFile, StoreLimits limits) {
    this.root = root;
    this.journal = journal;
    this.stateFile = stateFile;
    this.limits = limits;
  }

  /**
   * The checkpoint, or null if none was written yet. A checkpoint beyond the read bound is
   * read again if the store's recorded limits grew since this store read them.
   */
  Checkpoint readCheckpoint() {
    return withLimits(Checkpoint::read);
  }

  /**
   * The checkpoint with its state as bytes ({@link Checkpoint#readRaw}), or null if none was
   * written yet; retried as {@link #readCheckpoint} is when the store's limits grew.
   */
  Checkpoint.Raw readRawCheckpoint() {
    return withLimits(Checkpoint::readRaw);
  }

  /** A reader of {@code state.json} given the file, the root and the largest size it reads. */
  @FunctionalInterface
  private interface CheckpointRead<T> {
    T read(java.nio.file.Path file, String root, long maxBytes);
  }

  /**
   * {@code read} of the checkpoint within the store's recorded limits, read again once the
   * limits grew if the file was beyond them (another writer raised them since this store read
   * them).
   */
  private <T> T withLimits(CheckpointRead<T> read) {
    while (true) {
      try {
        return read.read(stateFile, root, limits.maxCheckpointBytes());
      } catch (CorruptLedgerException e) {
        if (!(e.getCause() instanceof SafeFiles.FileTooLargeException) || !limits.refresh()) {
          throw e;
        }
      }
    }
  }

  /**
   * Refuses symbolic links in the ledger's directory and its journal directory (an
   * {@code lstat} each; files are opened without following links). Called where a read or
   * a writer's recovery starts from the files, not on the cached fast path.
   *
   * @throws dev.ledger.core.SymbolicLinkException naming the link
   */
  void refuseLinks() {
    SafeFiles.refuseLink(stateFile.getParent());
    SafeFiles.refuseLink(journal.dir());
  }

  /** Forgets the cached position (the store is closing). */
  void clearCache() {
    published = null;
  }

  boolean exists() {
    return Files.exists(journal.segment(1)) || Files.exists(stateFile)
        || Files.exists(stateFile.resolveSibling(RetentionMarker.FILE));
  }

  Optional<StoredState> read() {
    Published p = published;
    if (p != null) {
      if (isLatest(p)) {
        return Optional.of(new StoredState(p.state(), p.revision(), p.updatedAt(),
            p.stateVersion()));
      }
      try {
        Optional<StoredState> forward = readForward(p);
        if (forward != null) {
          return forward;
        }
      } catch (JournalScanner.SegmentRemovedException e) {
        // A retention removed the segment the cached position is in: start afresh below,
        // from the newer checkpoint or retention marker.
        published = null;
      }
    }
    return retrying(() -> {
      refuseLinks();
      Tail t = checkedStart(start(readCheckpoint()));
      return t == null ? Optional.empty() : readFrom(t);
    });
  }

  /** Attempts of a read that a retention overtook, before its error is passed on. */
  private static final int RETRIES = 4;

  /**
   * Runs a read, again if a retention removed a segment it was reading (it then starts from
   * the newer checkpoint or retention marker). Bounded: a segment deleted by hand, not by
   * retention, fails the same way every time, and the last failure is thrown.
   */
  private <T> T retrying(java.util.function.Supplier<T> read) {
    for (int attempt = 1; ; attempt++) {
      try {
        return read.get();
      } catch (JournalScanner.SegmentRemovedException e) {
        if (attempt >= RETRIES) {
          throw e;
        }
        published = null;
      }
    }
  }

  /**
   * The head of the latest committed position, without building a state. From the cached
   * position when nothing was committed after it (as {@link #read}); otherwise from the cached
   * position if the segment still reaches it, else from the checkpoint's header fields
   * ({@link Checkpoint#readHeader}), then through every record after it with the same checks
   * as {@link #read} (checksums, revision and sequence continuity, torn tail). Publishes
   * nothing: the cache holds states, and this builds none.
   */
  Optional<LedgerHead> head() {
    return retrying(this::headOnce);
  }

  private Optional<LedgerHead> headOnce() {
    Published p = published;
    Tail t = null;
    if (p != null) {
      if (isLatest(p)) {
        return Optional.of(new LedgerHead(root, p.revision(), p.nextSequence() - 1,
            p.updatedAt()));
      }
      try {
        if (Files.size(journal.segment(p.segment())) >= p.end()) {
          t = new Tail();
          t.revision = p.revision();
          t.nextSequence = p.nextSequence();
          t.segment = p.segment();
          t.end = p.end();
          t.updatedAt = p.updatedAt();
        }
      } catch (NoSuchFileException e) {
        t = null;
      } catch (IOException e) {
        throw new LedgerIOException("checking journal size", journal.segment(p.segment()), e);
      }
    }
    if (t == null) {
      refuseLinks();
      t = checkedStart(start(readCheckpointHeader()));
      if (t == null) {
        return Optional.empty();
      }
    }
    try (JournalScanner scan = scanner(t)) {
      PositionedRecord r;
      while ((r = scan.next()) != null) {
        CommitRecord record = r.record();
        t.revision = record.revision();
        t.nextSequence = record.nextSequence();
        t.updatedAt = record.committedAt();
      }
    }
    return t.revision == 0 ? Optional.empty()
        : Optional.of(new LedgerHead(root, t.revision, t.nextSequence - 1, t.updatedAt));
  }

  /**
   * Where a read from the files starts: the checkpoint; without one, the retention marker's
   * base (a retention always leaves a checkpoint, but {@code state.json} may be lost later);
   * without either, the start of an empty ledger.
   */
  Tail start(Checkpoint checkpoint) {
    if (checkpoint != null) {
      return Tail.start(checkpoint);
    }
    RetentionMarker m = marker();
    Tail t = Tail.start(null);
    if (m != null) {
      t.revision = m.baseRevision();
      t.nextSequence = m.firstSequence();
      t.segment = m.firstRevision();
      t.end = 0;
      t.state = m.baseState();
      t.stateVersion = m.baseStateVersion();
      t.updatedAt = m.baseUpdatedAt();
    }
    return t;
  }

  /** As {@link #readCheckpoint}, without the state ({@link Checkpoint#readHeader}). */
  Checkpoint readCheckpointHeader() {
    return withLimits(Checkpoint::readHeader);
  }

  /**
   * Reads on from a position this process saw committed: records are append-only and only
   * bytes beyond committed ones are ever cut, so what follows it is what was committed since.
   * Returns null if the segment no longer reaches the position (external damage), so the
   * caller starts over from the checkpoint.
   */
  private Optional<StoredState> readForward(Published p) {
    try {
      if (Files.size(journal.segment(p.segment())) < p.end()) {
        return null;
      }
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      throw new LedgerIOException("checking journal size", journal.segment(p.segment()), e);
    }
    Tail t = new Tail();
    t.revision = p.revision();
    t.nextSequence = p.nextSequence();
    t.segment = p.segment();
    t.end = p.end();
    t.state = p.state();
    t.stateVersion = p.stateVersion();
    t.updatedAt = p.updatedAt();
    return readFrom(t);
  }

  private Optional<StoredState> readFrom(Tail t) {
    try (JournalScanner scan = scanner(t)) {
      PositionedRecord r;
      while ((r = scan.next()) != null) {
        t.apply(r, journal, false);
      }
      t.segment = scan.segment();
      t.end = scan.end();
    }
    if (t.revision == 0) {
      return Optional.empty();
    }
    publish(t);
    return Optional.of(new StoredState(t.state, t.revision, t.updatedAt, t.stateVersion));
  }

  /** Offers a position to the read cache; a newer one already there is kept. */
  void publish(Tail t) {
    Published p = published;
    if (p == null || p.revision() <= t.revision) {
      published = new Published(t.state, t.stateVersion, t.revision, t.updatedAt,
          t.nextSequence, t.segment, t.end);
    }
  }

  private boolean isLatest(Published p) {
    try {
      return nothingAfter(journal.segment(p.segment()), p.end())
          && (p.segment() == p.revision() + 1 || !Files.exists(journal.segment(p.revision() + 1)));
    } catch (NoSuchFileException e) {
      return false;
    } catch (IOException e) {
      throw new LedgerIOException("checking journal size", journal.segment(p.segment()), e);
    }
  }

  /**
   * Whether no record starts at {@code end} of {@code segment}: the file ends there, or a zero
   * byte of preallocated space is there. A stat, and a one-byte read only when the file is
   * longer.
   */
  static boolean nothingAfter(Path segment, long end) throws IOException {
    long size = Files.size(segment);
    if (size <= end) {
      return size == end;
    }
    try (FileChannel channel = SafeFiles.openRead(segment)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      return channel.read(one, end) == 1 && one.get(0) == 0;
    }
  }

  /**
   * Checks that {@code t}, a tail started from the checkpoint, stands at a record boundary of
   * a segment that exists.
   *
   * @return {@code t}, or null if the ledger has no commit yet (no checkpoint, no segment)
   * @throws CorruptLedgerException if the checkpoint points into a missing segment or off a
   *     record boundary
   * @throws LedgerIOException if the segment cannot be read
   */
  private Tail checkedStart(Tail t) {
    if (!Files.exists(journal.segment(t.segment))) {
      missingSegment(t);
      return null;
    }
    try {
      checkPosition(t);
    } catch (IOException e) {
      throw new LedgerIOException("reading journal", journal.segment(t.segment), e);
    }
    return t;
  }

  Optional<StoredState> missingSegment(Tail t) {
    if (t.revision == 0) {
      return Optional.empty();
    }
    Checkpoint now = readCheckpointHeader();
    if (now != null && (now.revision() != t.revision || now.segment() != t.segment)) {
      // A retention wrote a newer checkpoint and removed this one's segment since it was read.
      throw new JournalScanner.SegmentRemovedException(journal.segment(t.segment),
          new NoSuchFileException(journal.segment(t.segment).toString()));
    }
    throw new CorruptLedgerException(journal.segment(t.segment), -1,
        "the checkpoint at revision " + t.revision + " points into this missing segment");
  }

  /**
   * The result of the commit that recorded {@code id}, as a replay, or empty. No lock: the
   * command index first (one file, one record); on a miss, the records after the checkpoint,
   * which the index may not cover yet, then the index again, for a checkpoint written
   * meanwhile. Reading the checkpoint before scanning keeps that sound: every command up to a
   * checkpoint's revision has its index entry before the checkpoint is published.
   */
  Optional<CommitResult> command(String id, CommandIndex index) {
    return retrying(() -> commandOnce(id, index));
  }

  private Optional<CommitResult> commandOnce(String id, CommandIndex index) {
    CommitResult found = indexed(id, index);
    if (found != null) {
      return Optional.of(found);
    }
    Tail t = checkedStart(start(readCheckpoint()));
    if (t == null) {
      return Optional.empty();
    }
    try (JournalScanner scan = scanner(t)) {
      PositionedRecord r;
      while ((r = scan.next()) != null) {
        if (id.equals(r.record().commandId())) {
          return Optional.of(replayOf(r.record(), r.segment(), r.offset()));
        }
      }
    }
    return Optional.ofNullable(indexed(id, index));
  }

  /** The command's result through its index entry, or null if it has none. */
  private CommitResult indexed(String id, CommandIndex index) {
    CommandIndex.Entry entry = index.find(id);
    if (entry == null) {
      return null;
    }
    CommitRecord recorded = indexedRecordUnlessRemoved(id, entry);
    return recorded == null ? removedCommand(entry)
        : replayOf(recorded, entry.segment(), entry.offset());
  }

  /**
   * The record an index entry points at, or null if a retention removed it (the entry names
   * a revision before the retention marker's first).
   *
   * @throws CorruptLedgerException if no record of that command is there and no retention
   *     explains it
   */
  CommitRecord indexedRecordUnlessRemoved(String id, CommandIndex.Entry entry) {
    CommitRecord recorded = recordAt(entry.segment(), entry.offset());
    if (recorded != null && recorded.revision() == entry.revision()
        && id.equals(recorded.commandId())) {
      return recorded;
    }
    RetentionMarker m = marker();
    if (m != null && entry.revision() < m.firstRevision()) {
      return null;
    }
    return indexedRecord(id, entry);
  }

  /**
   * The replay of a command whose record a retention removed. What is kept of such a command
   * is its index entry: the revision and the digest. So the replay has the revision, no
   * events, the commit time of the last removed revision (at or after the real one, which is
   * gone with the record) and a cursor at the first retained event (every event of the
   * command is before it).
   */
  CommitResult removedCommand(CommandIndex.Entry entry) {
    RetentionMarker m = marker();
    if (m == null || entry.revision() >= m.firstRevision()) {
      throw new CorruptLedgerException(journal.segment(entry.segment()), entry.offset(),
          "the command index entry of revision " + entry.revision() + " points at no record");
    }
    return new CommitResult(root, entry.revision(), m.baseUpdatedAt(), List.of(),
        CursorCodec.encode(root, m.firstSequence() - 1, m.firstRevision(), 0), true);
  }

  /**
   * A retried command whose record a retention removed: its replay ({@link #removedCommand})
   * if the retry carries the recorded digest, else a conflict. A command recorded in journal
   * format 1 (whose digest covered the state) cannot be compared by intent once its record is
   * gone: its retry conflicts unless the state is the same too.
   *
   * @throws CommandConflictException if the digests differ
   */
  CommitResult removedCommandReplay(String id, CommandIndex.Entry entry, String digest) {
    if (!entry.digest().equals(digest)) {
      throw new CommandConflictException(root, id, entry.revision(), entry.digest(), digest);
    }
    return removedCommand(entry);
  }

  /**
   * The record an index entry points at.
   *
   * @throws CorruptLedgerException if no record of that command is there
   */
  CommitRecord indexedRecord(String id, CommandIndex.Entry entry) {
    CommitRecord recorded = recordAt(entry.segment(), entry.offset());
    if (recorded == null || recorded.revision() != entry.revision()
        || !id.equals(recorded.commandId())) {
      throw new CorruptLedgerException(journal.segment(entry.segment()), entry.offset(),
          "command index says " + id + " was committed at revision " + entry.revision()
              + " here, but no such record is here");
    }
    return recorded;
  }

  /** {@code record}, found at {@code offset} of {@code segment}, as a replayed result. */
  CommitResult replayOf(CommitRecord record, long segment, long offset) {
    return record.result(CursorCodec.encode(root, record.lastSequence(), segment, offset), true);
  }

  EventPage events(Cursor after, int limit) {
    refuseLinks();
    if (after.isStart()) {
      return retrying(() -> {
        JournalScanner scan = startScanner();
        return scan == null ? new EventPage(List.of(), after, false)
            : EventPages.page(root, scan, 0, after, limit);
      });
    }
    CursorCodec.Position position = CursorCodec.decode(root, after);
    return retrying(() -> EventPages.page(root, verified(position), position.after(), after,
        limit));
  }

  /** As {@link #events}, each event with the cursor after it. */
  List<CursoredEvent> eventsWithCursors(Cursor after, int limit) {
    if (after.isStart()) {
      return retrying(() -> {
        JournalScanner scan = startScanner();
        return scan == null ? List.<CursoredEvent>of()
            : EventPages.cursored(root, scan, 0, limit);
      });
    }
    CursorCodec.Position position = CursorCodec.decode(root, after);
    return retrying(() -> EventPages.cursored(root, verified(position), position.after(),
        limit));
  }

  Stream<Event> replay(Cursor after) {
    refuseLinks();
    if (after.isStart()) {
      JournalScanner scan = retrying(this::startScanner);
      return scan == null ? Stream.empty()
          : EventPages.stream(overtakenAware(scan.readAhead(), 0), 0);
    }
    CursorCodec.Position position = CursorCodec.decode(root, after);
    return EventPages.stream(overtakenAware(retrying(() -> verified(position)).readAhead(),
        position.after()), position.after());
  }

  /**
   * The retention marker, or null if no retention removed history.
   *
   * @throws CorruptLedgerException if it is damaged
   */
  RetentionMarker marker() {
    return RetentionMarker.read(stateFile.getParent(), root, limits.maxCheckpointBytes());
  }

  /** The sequence of the first event the journal holds: 1 unless a retention removed some. */
  long firstRetainedSequence() {
    RetentionMarker m = marker();
    return m == null ? 1 : m.firstSequence();
  }

  /**
   * A scanner at the first record the journal holds (segment 1, or the retention marker's
   * first revision), or null if the ledger has no commit.
   *
   * @throws CorruptLedgerException if the checkpoint exists but the first segment does not
   */
  private JournalScanner startScanner() {
    RetentionMarker m = marker();
    if (m != null) {
      return new JournalScanner(journal, m.firstRevision(), 0, m.firstRevision(),
          m.firstSequence()).eventsOnly();
    }
    if (!Files.exists(journal.segment(1))) {
      if (marker() != null) {
        // a retention removed segment 1 since the marker was read: start over
        throw new JournalScanner.SegmentRemovedException(journal.segment(1),
            new NoSuchFileException(journal.segment(1).toString()));
      }
      missingSegment(Tail.start(readCheckpoint()));
      return null;
    }
    return new JournalScanner(journal, 1, 0, 1, 1).eventsOnly();
  }

  /**
   * A lazily read source that turns a retention overtaking it into
   * {@link HistoryTruncatedException} naming the last sequence it delivered.
   */
  private RecordSource overtakenAware(JournalScanner scan, long after) {
    return new RecordSource() {
      private long delivered = after;

      @Override
      public PositionedRecord next() {
        PositionedRecord r;
        try {
          r = scan.next();
        } catch (JournalScanner.SegmentRemovedException e) {
          RetentionMarker m = marker();
          if (m == null) {
            throw e;
          }
          HistoryTruncatedException t = new HistoryTruncatedException(root, delivered,
              m.firstSequence(), "a replay that had read up to sequence " + delivered
                  + " was overtaken by a retention");
          t.initCause(e);
          throw t;
        }
        if (r != null && r.record().nextSequence() > 1) {
          delivered = Math.max(delivered, r.record().nextSequence() - 1);
        }
        return r;
      }

      @Override
      public void close() {
        scan.close();
      }
    };
  }

  /** A scanner at the cursor's position hint, once the record there proves the hint. */
  private JournalScanner verified(CursorCodec.Position position) {
    if (!exists()) {
      throw new LedgerNotFoundException(root);
    }
    CommitRecord record = position.segment() < 1 ? null
        : recordAt(position.segment(), position.offset());
    if (record == null) {
      JournalScanner retained = afterRetention(position);
      if (retained != null) {
        return retained;
      }
    }
    if (record == null || !EventPages.startsReadAfter(record, position.after())) {
      throw CursorCodec.invalid(root, "cursor position (segment " + position.segment()
          + ", offset " + position.offset() + ", after sequence " + position.after()
          + ") does not match the journal");
    }
    return new JournalScanner(journal, position.segment(), position.offset(), record.revision(),
        record.firstSequence()).eventsOnly();
  }

  /**
   * For a cursor whose hinted record is gone: if the retention marker says the hint is
   * before the first retained revision, either the cursor covers every removed event (it
   * reads on from the first retained record) or it needs a removed one
   * ({@link HistoryTruncatedException}). Null if no retention explains the missing record.
   */
  private JournalScanner afterRetention(CursorCodec.Position position) {
    RetentionMarker m = marker();
    if (m == null || position.segment() >= m.firstRevision()) {
      return null;
    }
    if (position.after() + 1 < m.firstSequence()) {
      throw new HistoryTruncatedException(root, position.after(), m.firstSequence());
    }
    if (position.after() + 1 > m.firstSequence()) {
      return null; // a cursor of removed history cannot be past it: not one of ours
    }
    return new JournalScanner(journal, m.firstRevision(), 0, m.firstRevision(),
        m.firstSequence()).eventsOnly();
  }

  /** The valid record whose line starts at {@code offset}, or null if there is none. */
  CommitRecord recordAt(long segment, long offset) {
    Path path = journal.segment(segment);
    try {
      if (offset > 0) {
        try (FileChannel channel = SafeFiles.openRead(path)) {
          ByteBuffer previous = ByteBuffer.allocate(1);
          if (channel.read(previous, offset - 1) != 1 || previous.get(0) != '\n') {
            return null;
          }
        }
      }
      LineReader.Line line;
      while (true) {
        try (LineReader reader = new LineReader(path, offset, journal.maxLine())) {
          line = reader.next();
        }
        if (line == null || line.kind() != LineReader.Kind.OVERSIZED
            || !journal.refreshLimits()) {
          break;
        }
      }
      if (line == null || line.kind() != LineReader.Kind.COMPLETE) {
        return null;
      }
      CommitRecord record = JournalLine.decode(line.bytes(), line.length());
      return record.root().equals(root) && (offset > 0 || record.revision() == segment)
          ? record : null;
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      throw new LedgerIOException("reading journal record", path, e);
    } catch (JournalLine.DefectException | CommitRecord.FutureFormatException e) {
      return null;
    }
  }

  JournalScanner scanner(Tail t) {
    return new JournalScanner(journal, t.segment, t.end, t.revision + 1, t.nextSequence);
  }

  /**
   * As {@link #scanner(Tail)}, reading {@code t}'s segment through {@code channel} (open on
   * it, {@code size} bytes long), which the scanner leaves open.
   */
  JournalScanner scanner(Tail t, FileChannel channel, long size) {
    return new JournalScanner(journal, t.segment, t.end, t.revision + 1, t.nextSequence,
        channel, size);
  }

  /** Checks that a checkpoint's journal position is a record boundary inside its segment. */
  void checkPosition(Tail t) throws IOException {
    if (t.end == 0) {
      return;
    }
    try (FileChannel channel = SafeFiles.openRead(journal.segment(t.segment))) {
      checkPosition(t, channel, channel.size());
    }
  }

  /**
   * As {@link #checkPosition(Tail)}, through {@code channel}, open on {@code t}'s segment,
   * whose size is {@code size}; leaves it open.
   */
  void checkPosition(Tail t, FileChannel channel, long size) throws IOException {
    if (t.end == 0) {
      return;
    }
    Path path = journal.segment(t.segment);
    if (t.end > size) {
      throw new CorruptLedgerException(path, t.end, "checkpoint of revision " + t.revision
          + " points beyond the end of the segment (" + size + " bytes)");
    }
    ByteBuffer previous = ByteBuffer.allocate(1);
    if (channel.read(previous, t.end - 1) != 1 || previous.get(0) != '\n') {
      throw new CorruptLedgerException(path, t.end, "checkpoint of revision " + t.revision
          + " does not point at a record boundary");
    }
  }
}
