package dev.ledger.core.memory;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.core.CommandConflictException;
import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventPage;
import dev.ledger.core.LedgerBusyException;
import dev.ledger.core.LedgerHead;
import dev.ledger.core.ImportResult;
import dev.ledger.core.InvalidExportException;
import dev.ledger.core.LedgerExistsException;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.LedgerNotFoundException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LimitExceededException;
import dev.ledger.core.LockTimeoutException;
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
  /** Fired after each commit, for followers. */
  private final CommitSignal signal = new CommitSignal();

  private record Head(JsonNode state, long revision, java.time.Instant updatedAt,
      long nextSequence, int stateVersion) {}

  MemoryLedger(String root, LedgerOptions options) {
    this.root = root;
    this.options = options;
  }

  @Override
  public String rootId() {
    return root;
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
      return record.result(cursorAfter(record, index), false);
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
      return EventPages.page(root, source(0), 0, after, limit);
    }
    CursorCodec.Position position = CursorCodec.decode(root, after);
    return EventPages.page(root, source(verify(position)), position.after(), after, limit);
  }

  @Override
  public List<CursoredEvent> eventsWithCursors(Cursor after, int limit) {
    if (after.isStart()) {
      return EventPages.cursored(root, source(0), 0, limit);
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
      return EventPages.stream(source(0), 0);
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
    if (!EventPages.startsReadAfter(record(index), position.after())) {
      throw CursorCodec.invalid(root, "cursor position does not match the journal");
    }
    return index;
  }

  /** Takes the writer lock, bounded by the lock timeout. */
  /**
   * Forgets every commit, under the writer lock (waiting up to the lock timeout): afterwards
   * this is the ledger of a root id never committed to. Readers see the old ledger or none.
   *
   * @return true if the ledger had a commit
   * @throws LedgerBusyException if another writer held the lock past the deadline
   */
  boolean delete() {
    try {
      lockWriter();
    } catch (LockTimeoutException e) {
      throw new LedgerBusyException(root, "delete", null, null, e);
    }
    try {
      boolean existed = head != null;
      head = null;
      journal.writeLock().lock();
      try {
        lines.clear();
      } finally {
        journal.writeLock().unlock();
      }
      commands.clear();
      signal.fire();
      return existed;
    } finally {
      writer.unlock();
    }
  }

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
      return lines.size();
    } finally {
      journal.readLock().unlock();
    }
  }

  private CommitRecord record(int index) {
    byte[] line;
    journal.readLock().lock();
    try {
      line = lines.get(index);
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
}
