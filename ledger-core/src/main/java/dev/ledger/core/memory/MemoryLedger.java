package dev.ledger.core.memory;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.core.CommandConflictException;
import dev.ledger.core.CommitListener;
import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventPage;
import dev.ledger.core.HistoryTruncatedException;
import dev.ledger.core.LedgerHead;
import dev.ledger.core.ImportResult;
import dev.ledger.core.InvalidExportException;
import dev.ledger.core.LedgerExistsException;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.LedgerNotFoundException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LimitExceededException;
import dev.ledger.core.LockTimeoutException;
import dev.ledger.core.RetentionPolicy;
import dev.ledger.core.RetentionResult;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.internal.journal.CommitRecord;
import dev.ledger.core.internal.journal.CursorCodec;
import dev.ledger.core.internal.journal.EventPages;
import dev.ledger.core.internal.journal.JournalLine;
import dev.ledger.core.internal.journal.LedgerExportFormat;
import dev.ledger.core.internal.journal.PositionedRecord;
import dev.ledger.core.internal.journal.RecordSource;
import dev.ledger.core.spi.CommitRequest;
import dev.ledger.core.spi.CommitSignal;
import dev.ledger.core.spi.CommitWatch;
import dev.ledger.core.spi.CursoredEvent;
import dev.ledger.core.spi.LedgerBackend;
import dev.ledger.core.spi.StoredState;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.stream.Stream;

/**
 * One in-memory ledger. Commits are encoded as journal lines exactly as on disk and decoded
 * on every read, so callers never share mutable trees with the store. Writers serialize on
 * {@code writer} (bounded by the lock timeout); the journal list is guarded by
 * {@code journal}, held by writers only while publishing.
 */
final class MemoryLedger implements LedgerBackend {
  private final String root;
  private final LedgerOptions options;
  private final ReentrantLock writer = new ReentrantLock();
  private final ReentrantReadWriteLock journal = new ReentrantReadWriteLock();
  private final List<byte[]> lines = new ArrayList<>();
  /** Journal index of each command's record; written by writers after the line is added. */
  private final Map<String, Integer> commands = new ConcurrentHashMap<>();
  private volatile Head head;
  /**
   * Records removed by retention: {@code lines.get(0)} is the record at journal index
   * {@code removed} (revision {@code removed + 1}). Guarded by {@code journal}.
   */
  private int removed;
  /** What retention keeps of the state before the journal's first record; null until then. */
  private volatile Retained retained;
  /** Intent digests of commands whose records retention removed. */
  private final Map<String, String> removedDigests = new ConcurrentHashMap<>();
  /** Told of each commit under the writer lock (the store's commit listeners). */
  private volatile CommitListener listener = result -> { };
  /** Fired after each commit, for followers. */
  private final CommitSignal signal = new CommitSignal();

  private record Head(JsonNode state, long revision, java.time.Instant updatedAt,
      long nextSequence, int stateVersion) {}

  /** Where the journal starts after a retention, and the commit time just before it. */
  private record Retained(int firstIndex, long firstSequence, Instant baseUpdatedAt) {}

  MemoryLedger(String root, LedgerOptions options) {
    this.root = root;
    this.options = options;
  }

  @Override
  public String rootId() {
    return root;
  }

  /** Sets what is told of each commit ({@link CommitListener}); never throws. */
  void listen(CommitListener committed) {
    this.listener = committed;
  }

  @Override
  public boolean exists() {
    return head != null;
  }

  @Override
  public Optional<LedgerHead> head() {
    Head h = head;
    return h == null ? Optional.empty()
        : Optional.of(new LedgerHead(root, h.revision(), h.nextSequence() - 1, h.updatedAt()));
  }

  @Override
  public Optional<StoredState> read() {
    Head h = head;
    return h == null ? Optional.empty()
        : Optional.of(new StoredState(h.state(), h.revision(), h.updatedAt(),
            h.stateVersion()));
  }

  @Override
  public Optional<CommitResult> command(String publicCommandId) {
    Integer index = commands.get(publicCommandId);
    if (index == null) {
      return Optional.empty();
    }
    if (index < removedCount()) {
      return Optional.of(removedCommand(index));
    }
    CommitRecord recorded = record(index);
    return Optional.of(recorded.result(cursorAfter(recorded, index), true));
  }

  @Override
  public CommitResult commit(CommitRequest request) {
    try {
      if (!writer.tryLock(options.lockTimeout().toNanos(), TimeUnit.NANOSECONDS)) {
        throw new LockTimeoutException("in-memory ledger '" + root + "'", options.lockTimeout());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LockTimeoutException("in-memory ledger '" + root + "' (interrupted)",
          options.lockTimeout());
    }
    try {
      Head h = head;
      long revision = h == null ? 0 : h.revision();
      if (request.publicCommandId() != null) {
        Integer index = commands.get(request.publicCommandId());
        if (index != null && index < removedCount()) {
          String digest = removedDigests.get(request.publicCommandId());
          if (!request.commandDigest().equals(digest)) {
            throw new CommandConflictException(root, request.publicCommandId(), index + 1,
                digest, request.commandDigest());
          }
          return removedCommand(index);
        }
        if (index != null) {
          CommitRecord recorded = record(index);
          if (!recorded.sameCommand(request)) {
            throw new CommandConflictException(root, request.publicCommandId(),
                recorded.revision(), recorded.intentDigest(), request.commandDigest());
          }
          return recorded.result(cursorAfter(recorded, index), true);
        }
      }
      if (request.expectedRevision() != revision) {
        throw new RevisionConflictException(root, request.expectedRevision(), revision);
      }
      CommitRecord record = CommitRecord.next(root, revision, h == null ? 1 : h.nextSequence(),
          h == null ? null : h.state(), request, options.clock().instant());
      byte[] line = JournalLine.encode(record);
      long max = JournalLine.maxLineBytes(options);
      if (line.length > max) {
        throw new LimitExceededException(root, "commit record", max, line.length);
      }
      int index;
      journal.writeLock().lock();
      try {
        index = lines.size();
        lines.add(line);
      } finally {
        journal.writeLock().unlock();
      }
      if (record.commandId() != null) {
        commands.put(record.commandId(), index);
      }
      head = new Head(request.state(), record.revision(), record.committedAt(),
          record.nextSequence(), record.stateVersion());
      signal.fire();
      CommitResult result = record.result(cursorAfter(record, index), false);
      listener.committed(result); // under the writer lock: in commit order
      return result;
    } finally {
      writer.unlock();
    }
  }

  /**
   * Writes the export of this ledger up to its current revision.
   *
   * @throws LedgerNotFoundException if it has no commit
   * @throws LedgerIOException if {@code out} fails
   */
  long export(Instant now, OutputStream out) {
    Head h = head;
    if (h == null) {
      throw new LedgerNotFoundException(root);
    }
    Retained r = retained;
    if (r != null) {
      throw new HistoryTruncatedException(root, 0, r.firstSequence(), "an export needs every "
          + "revision from 1, but revisions before " + (r.firstIndex() + 1)
          + " were removed; export is refused");
    }
    try {
      LedgerExportFormat.write(root, h.revision(), now, source(0), out);
    } catch (IOException e) {
      throw new LedgerIOException(null, "Writing the export of in-memory ledger '" + root
          + "' failed: " + e.getMessage(), e);
    }
    return h.revision();
  }

  /**
   * Reads and checks every record line after {@code header}, then, under the writer lock,
   * publishes them as this ledger's journal, with its command index and state: the commit
   * point is the write of {@code head}, which readers read first.
   *
   * @throws InvalidExportException if the input is not a valid export
   * @throws LedgerExistsException if the ledger has a commit
   */
  ImportResult adopt(LedgerExportFormat.Lines in, LedgerExportFormat.Header header) {
    LedgerExportFormat.Validator validator = new LedgerExportFormat.Validator(header);
    List<byte[]> records = new ArrayList<>();
    Map<String, Integer> recorded = new HashMap<>();
    try {
      validator.readAll(in, (record, line, length) -> {
        if (record.commandId() != null) {
          recorded.put(record.commandId(), records.size());
        }
        byte[] copy = Arrays.copyOf(line, length + 1);
        copy[length] = '\n';
        records.add(copy);
      });
    } catch (IOException e) {
      throw new LedgerIOException(null, "Reading the export of ledger '" + root + "' failed: "
          + e.getMessage(), e);
    }
    lockWriter();
    try {
      if (head != null) {
        throw new LedgerExistsException(root, "the store holds it");
      }
      journal.writeLock().lock();
      try {
        lines.addAll(records);
      } finally {
        journal.writeLock().unlock();
      }
      commands.putAll(recorded);
      CommitRecord last = validator.last();
      head = new Head(validator.state(), last.revision(), last.committedAt(),
          validator.nextSequence(), last.stateVersion());
      signal.fire();
      return new ImportResult(root, last.revision(), validator.nextSequence() - 1,
          validator.commands());
    } finally {
      writer.unlock();
    }
  }

  @Override
  public EventPage events(Cursor after, int limit) {
    if (after.isStart()) {
      return EventPages.page(root, source(removedCount()), 0, after, limit);
    }
    CursorCodec.Position position = CursorCodec.decode(root, after);
    return EventPages.page(root, source(verify(position)), position.after(), after, limit);
  }

  @Override
  public List<CursoredEvent> eventsWithCursors(Cursor after, int limit) {
    if (after.isStart()) {
      return EventPages.cursored(root, source(removedCount()), 0, limit);
    }
    CursorCodec.Position position = CursorCodec.decode(root, after);
    return EventPages.cursored(root, source(verify(position)), position.after(), limit);
  }

  @Override
  public CommitWatch watchCommits() {
    // Every commit of this ledger goes through this object, so the signal sees them all.
    return CommitWatch.of(signal);
  }

  @Override
  public Stream<Event> replay(Cursor after) {
    if (after.isStart()) {
      return EventPages.stream(source(removedCount()), 0);
    }
    CursorCodec.Position position = CursorCodec.decode(root, after);
    return EventPages.stream(source(verify(position)), position.after());
  }

  private int verify(CursorCodec.Position position) {
    if (head == null) {
      throw new LedgerNotFoundException(root);
    }
    if (position.segment() != 0 || position.offset() >= size()) {
      throw CursorCodec.invalid(root, "cursor position is beyond the journal");
    }
    int index = (int) position.offset();
    Retained r = retained;
    if (r != null && index < r.firstIndex()) {
      if (position.after() + 1 < r.firstSequence()) {
        throw new HistoryTruncatedException(root, position.after(), r.firstSequence());
      }
      if (position.after() + 1 == r.firstSequence()) {
        return r.firstIndex();
      }
      throw CursorCodec.invalid(root, "cursor position does not match the journal");
    }
    if (!EventPages.startsReadAfter(record(index), position.after())) {
      throw CursorCodec.invalid(root, "cursor position does not match the journal");
    }
    return index;
  }

  /** Takes the writer lock, bounded by the lock timeout. */
  private void lockWriter() {
    try {
      if (!writer.tryLock(options.lockTimeout().toNanos(), TimeUnit.NANOSECONDS)) {
        throw new LockTimeoutException("in-memory ledger '" + root + "'", options.lockTimeout());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LockTimeoutException("in-memory ledger '" + root + "' (interrupted)",
          options.lockTimeout());
    }
  }

  private Cursor cursorAfter(CommitRecord record, int index) {
    return CursorCodec.encode(root, record.lastSequence(), 0, index);
  }

  private int size() {
    journal.readLock().lock();
    try {
      return removed + lines.size();
    } finally {
      journal.readLock().unlock();
    }
  }

  private CommitRecord record(int index) {
    byte[] line;
    journal.readLock().lock();
    try {
      if (index < removed) {
        Retained r = retained;
        throw new HistoryTruncatedException(root, 0, r.firstSequence(), "a read of "
            + "revision " + (index + 1) + " was overtaken by a retention");
      }
      line = lines.get(index - removed);
    } finally {
      journal.readLock().unlock();
    }
    return JournalLine.decode(line, line.length - 1);
  }

  private RecordSource source(int start) {
    return new RecordSource() {
      private int next = start;

      @Override
      public PositionedRecord next() {
        if (next >= size()) {
          return null;
        }
        int index = next++;
        return new PositionedRecord(record(index), 0, index);
      }

      @Override
      public void close() {}
    };
  }

  // ---------------------------------------------------------------- retention

  @Override
  public long firstRetainedSequence() {
    Retained r = retained;
    return r == null ? 1 : r.firstSequence();
  }

  /**
   * Drops the records before the first revision {@code policy} keeps (at most the latest),
   * under the writer lock. What is kept of a dropped command is its revision and digest (see
   * {@link #removedCommand}).
   *
   * @throws LedgerNotFoundException if the ledger has no commit
   */
  RetentionResult applyRetention(RetentionPolicy policy) {
    lockWriter();
    try {
      Head h = head;
      if (h == null) {
        throw new LedgerNotFoundException(root);
      }
      int first = removedCount();
      long byCount = policy.firstKeptByCount(h.revision());
      long cut = byCount;
      if (policy.keepHistory().isPresent()) {
        Instant now = options.clock().instant();
        long byTime = h.revision() + 1;
        for (int i = first; i < h.revision() && i + 1 < byCount; i++) {
          if (policy.keepsByTime(record(i).committedAt(), now)) {
            byTime = i + 1;
            break;
          }
        }
        cut = Math.min(byCount, byTime);
      }
      int newFirst = (int) Math.min(cut, h.revision()) - 1;
      if (newFirst <= first) {
        Retained r = retained;
        return new RetentionResult(root, 0, 0, 0, first + 1,
            r == null ? 1 : r.firstSequence(), false);
      }
      long bytes = 0;
      for (int i = first; i < newFirst; i++) {
        CommitRecord dropped = record(i);
        if (dropped.commandId() != null) {
          removedDigests.put(dropped.commandId(), dropped.intentDigest());
        }
      }
      Retained next = new Retained(newFirst, record(newFirst).firstSequence(),
          record(newFirst - 1).committedAt());
      journal.writeLock().lock();
      try {
        List<byte[]> gone = lines.subList(0, newFirst - removed);
        for (byte[] line : gone) {
          bytes += line.length;
        }
        gone.clear();
        retained = next;
        removed = newFirst;
      } finally {
        journal.writeLock().unlock();
      }
      return new RetentionResult(root, newFirst - first, 0, bytes, newFirst + 1,
          next.firstSequence(), false);
    } finally {
      writer.unlock();
    }
  }

  private int removedCount() {
    journal.readLock().lock();
    try {
      return removed;
    } finally {
      journal.readLock().unlock();
    }
  }

  /**
   * The replay of a command at journal index {@code index}, whose record retention dropped:
   * the revision, no events, the commit time of the last dropped revision (at or after the
   * real one), and a cursor at the first retained event; as the file store gives it.
   */
  private CommitResult removedCommand(int index) {
    Retained r = retained;
    return new CommitResult(root, index + 1, r.baseUpdatedAt(), List.of(),
        CursorCodec.encode(root, r.firstSequence() - 1, 0, r.firstIndex()), true);
  }
}
