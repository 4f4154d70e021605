package dev.ledger.core.memory;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.common.base.Preconditions;
import dev.ledger.core.CommandConflictException;
import dev.ledger.core.CommitListener;
import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.EventPage;
import dev.ledger.core.HistoryTruncatedException;
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
import dev.ledger.core.internal.json.LedgerJson;
import dev.ledger.core.spi.WriteMeter;
import dev.ledger.core.spi.CommitRequest;
import dev.ledger.core.spi.CommitSignal;
import dev.ledger.core.spi.CommitWatch;
import dev.ledger.core.spi.CursoredEvent;
import dev.ledger.core.spi.LedgerBackend;
import dev.ledger.core.spi.LoggedCommit;
import dev.ledger.core.spi.PatchLog;
import dev.ledger.core.spi.PatchRequest;
import dev.ledger.core.spi.StoredState;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.stream.LongStream;
import java.util.stream.Stream;

/**
 * One in-memory ledger. Commits are encoded as journal lines exactly as on disk and decoded
 * on every read, so callers never share mutable trees with the store. Writers serialize on
 * {@code writer} (bounded by the lock timeout); the journal list is guarded by
 * {@code journal}, held by writers only while publishing.
 *
 * <p><b>Patch log.</b> A {@link PatchLog} commit appends a {@code patch} record without
 * building the state: the head then knows its revision but not its state, and the state is
 * folded on demand ({@link #read}, a {@link LedgerBackend#commit}) from the newest of the last
 * folded state and the checkpoint, over the records after it. Line {@code i} of the journal
 * holds revision {@code i + 1}, so {@link #commitsAfter} starts at an index, not a search.
 * The checkpoint is a deep copy of the caller's tree, kept beside the journal; it is also
 * taken as the folded state of its revision.
 */
final class MemoryLedger implements LedgerBackend, PatchLog {
  private final String root;
  private final LedgerOptions options;
  private final ReentrantLock writer = new ReentrantLock();
  private final ReentrantReadWriteLock journal = new ReentrantReadWriteLock();
  private final List<byte[]> lines = new ArrayList<>();
  /** Journal index of each command's record; written by writers after the line is added. */
  private final Map<String, Integer> commands = new ConcurrentHashMap<>();
  private volatile Head head;
  /** The newest state folded from the journal (or a checkpoint), or null. */
  private volatile Folded folded;
  /** The newest checkpoint, or null. */
  private volatile StoredState checkpoint;
  /** Bytes of all journal lines, and of those up to the checkpoint; guarded by writer. */
  private long journalBytes;
  private volatile long checkpointBytes;
  private volatile long journalBytesSeen;
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
  /** Counts journal bytes for the store's metrics. */
  private volatile WriteMeter meter = WriteMeter.NONE;
  /** Fired after each commit, for followers. */
  private final CommitSignal signal = new CommitSignal();

  /**
   * The newest commit. {@code state} is its state, or null when it was committed as a patch
   * and not folded yet.
   */
  private record Head(JsonNode state, long revision, java.time.Instant updatedAt,
      long nextSequence, int stateVersion) {}

  /** A state folded up to {@code revision}; shared with readers, never mutated. */
  private record Folded(JsonNode state, long revision) {}
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

  /** Sets what counts this ledger's journal bytes, for metrics; never throws. */
  void meter(WriteMeter writes) {
    this.meter = writes;
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
        : Optional.of(new StoredState(stateOf(h), h.revision(), h.updatedAt(),
            h.stateVersion()));
  }

  /** The state of {@code h}: its own, or folded from the journal when it is a patch head. */
  private JsonNode stateOf(Head h) {
    if (h.state() != null) {
      return h.state();
    }
    Folded f = folded;
    if (f != null && f.revision() == h.revision()) {
      return f.state();
    }
    synchronized (this) {
      f = folded;
      StoredState cp = checkpoint;
      long from = 0;
      JsonNode base = null;
      if (f != null && f.revision() <= h.revision()) {
        from = f.revision();
        base = f.state();
      }
      if (cp != null && cp.revision() <= h.revision() && cp.revision() > from) {
        from = cp.revision();
        base = cp.state();
      }
      if (from == h.revision()) {
        return base;
      }
      // One copy of the base, then every patch in place: the fold costs the state once
      // plus the records, not the state once per record.
      JsonNode state = base == null ? null : base.deepCopy();
      for (long r = from + 1; r <= h.revision(); r++) {
        CommitRecord record = record((int) (r - 1));
        if (record.state() != null) {
          state = record.state();
        } else {
          state = PatchFold.apply(state, record.patch());
        }
      }
      folded = new Folded(state, h.revision());
      return state;
    }
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
          h == null ? null : stateOf(h), request, options.clock().instant());
      byte[] line = JournalLine.encode(record);
      long max = JournalLine.maxLineBytes(options);
      if (line.length > max) {
        throw new LimitExceededException(root, "commit record", max, line.length);
      }
      CommitResult result = append(record, line, request.state());
      signal.fire();
      listener.committed(result); // under the writer lock: in commit order
      return result;
    } finally {
      writer.unlock();
    }
  }

  /**
   * Publishes one record: its line, its command, then the head (the commit point). Called
   * with the writer lock held and every check done.
   *
   * @param state the new state, or null for a patch record
   */
  private CommitResult append(CommitRecord record, byte[] line, JsonNode state) {
    int index;
    journal.writeLock().lock();
    try {
      index = removed + lines.size(); // journal index: retention may have dropped a prefix
      lines.add(line);
    } finally {
      journal.writeLock().unlock();
    }
    journalBytes += line.length;
    journalBytesSeen = journalBytes;
    meter.journalWritten(line.length);
    if (record.commandId() != null) {
      commands.put(record.commandId(), index);
    }
    head = new Head(state, record.revision(), record.committedAt(), record.nextSequence(),
        record.stateVersion());
    return record.result(cursorAfter(record, index), false);
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
      for (byte[] record : records) {
        journalBytes += record.length;
      }
      journalBytesSeen = journalBytes;
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

  // ------------------------------------------------------------------ patch log

  @Override
  public Optional<StoredState> checkpoint() {
    return Optional.ofNullable(checkpoint);
  }

  @Override
  public Stream<LoggedCommit> commitsAfter(long revision) {
    Preconditions.checkArgument(revision >= 0, "revision must be >= 0: %s", revision);
    Head h = head;
    long newest = h == null ? 0 : h.revision();
    if (revision >= newest) {
      return Stream.empty();
    }
    return LongStream.rangeClosed(revision + 1, newest).mapToObj(r -> {
      CommitRecord record = record((int) (r - 1));
      return new LoggedCommit(record.revision(), record.committedAt(), record.stateVersion(),
          record.state(), record.patch(), record.events(), record.commandId());
    });
  }

  @Override
  public CommitResult commitPatch(PatchRequest request) {
    Preconditions.checkNotNull(request, "request");
    lockWriter();
    try {
      Head h = head;
      long revision = h == null ? 0 : h.revision();
      if (request.publicCommandId() != null) {
        Integer index = commands.get(request.publicCommandId());
        if (index != null) {
          CommitRecord recorded = record(index);
          if (!recorded.intentDigest().equals(request.commandDigest())) {
            throw new CommandConflictException(root, request.publicCommandId(),
                recorded.revision(), recorded.intentDigest(), request.commandDigest());
          }
          return recorded.result(cursorAfter(recorded, index), true);
        }
      }
      if (request.expectedRevision() != revision) {
        throw new RevisionConflictException(root, request.expectedRevision(), revision);
      }
      CommitRecord record = patchRecord(request, revision, h == null ? 1 : h.nextSequence(),
          options.clock().instant());
      byte[] line = encodeWithinLimit(record);
      CommitResult result = append(record, line, null);
      signal.fire();
      listener.committed(result); // under the writer lock: in commit order
      return result;
    } finally {
      writer.unlock();
    }
  }

  @Override
  public List<CommitResult> commitPatches(List<PatchRequest> batch) {
    Preconditions.checkNotNull(batch, "batch");
    Preconditions.checkArgument(!batch.isEmpty(), "a batch needs at least one request");
    Set<String> batchCommands = new HashSet<>();
    for (int i = 0; i < batch.size(); i++) {
      PatchRequest request = Preconditions.checkNotNull(batch.get(i), "request %s is null", i);
      Preconditions.checkArgument(i == 0 || request.expectedRevision()
          == batch.get(i - 1).expectedRevision() + 1,
          "request %s expects revision %s, not the one after request %s's (%s)", i,
          request.expectedRevision(), i - 1, batch.get(0).expectedRevision() + i);
      Preconditions.checkArgument(request.publicCommandId() == null
          || batchCommands.add(request.publicCommandId()),
          "command %s appears twice in one batch", request.publicCommandId());
    }
    lockWriter();
    try {
      Head h = head;
      long revision = h == null ? 0 : h.revision();
      for (PatchRequest request : batch) {
        if (request.publicCommandId() != null) {
          Integer index = commands.get(request.publicCommandId());
          if (index != null) {
            CommitRecord recorded = record(index);
            throw new CommandConflictException(root, request.publicCommandId(),
                recorded.revision(), recorded.intentDigest(), request.commandDigest());
          }
        }
      }
      if (batch.get(0).expectedRevision() != revision) {
        throw new RevisionConflictException(root, batch.get(0).expectedRevision(), revision);
      }
      Instant now = options.clock().instant();
      List<CommitRecord> records = new ArrayList<>(batch.size());
      List<byte[]> encoded = new ArrayList<>(batch.size());
      long nextSequence = h == null ? 1 : h.nextSequence();
      for (PatchRequest request : batch) {
        CommitRecord record = patchRecord(request, revision, nextSequence, now);
        encoded.add(encodeWithinLimit(record));
        records.add(record);
        revision = record.revision();
        nextSequence = record.nextSequence();
      }
      List<CommitResult> results = new ArrayList<>(batch.size());
      for (int i = 0; i < records.size(); i++) {
        results.add(append(records.get(i), encoded.get(i), null));
      }
      signal.fire();
      results.forEach(listener::committed); // under the writer lock: in commit order
      return List.copyOf(results);
    } finally {
      writer.unlock();
    }
  }

  @Override
  public boolean checkpoint(long revision, JsonNode state, int stateVersion) {
    Preconditions.checkArgument(revision >= 1, "revision must be >= 1: %s", revision);
    Preconditions.checkNotNull(state, "state");
    Preconditions.checkArgument(stateVersion >= 0, "stateVersion must be >= 0: %s",
        stateVersion);
    lockWriter();
    try {
      Head h = head;
      if (h == null || h.revision() != revision) {
        return false;
      }
      JsonNode copy = state.deepCopy();
      checkpoint = new StoredState(copy, revision, h.updatedAt(), stateVersion);
      checkpointBytes = journalBytes;
      folded = new Folded(copy, revision);
      return true;
    } finally {
      writer.unlock();
    }
  }

  @Override
  public long journalBytesSinceCheckpoint() {
    return journalBytesSeen - checkpointBytes;
  }

  /** The patch record of {@code request} after {@code revision}; checks payload sizes. */
  private CommitRecord patchRecord(PatchRequest request, long revision, long nextSequence,
      Instant now) {
    long next = revision + 1;
    List<Event> events = new ArrayList<>(request.events().size());
    long sequence = nextSequence;
    for (int i = 0; i < request.events().size(); i++) {
      EventDraft draft = request.events().get(i);
      int size = LedgerJson.canonical(draft.payload()).length;
      if (size > options.maxEventPayloadBytes()) {
        throw new LimitExceededException(root, "payload of event " + i + " (" + draft.type()
            + ")", options.maxEventPayloadBytes(), size);
      }
      events.add(new Event(CommitRecord.eventId(root, sequence), root, sequence, next,
          draft.type(), now, draft.payload(), request.publicCommandId(), draft.operationId()));
      sequence++;
    }
    return new CommitRecord(CommitRecord.FORMAT, root, next, now, nextSequence, events,
        request.publicCommandId(), request.commandDigest(), request.stateVersion(), null,
        request.patch());
  }

  private byte[] encodeWithinLimit(CommitRecord record) {
    byte[] line = JournalLine.encode(record);
    long max = JournalLine.maxLineBytes(options);
    if (line.length > max) {
      throw new LimitExceededException(root, "commit record", max, line.length);
    }
    return line;
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
        removed = 0;
        retained = null;
      } finally {
        journal.writeLock().unlock();
      }
      commands.clear();
      removedDigests.clear();
      folded = null;
      checkpoint = null;
      journalBytes = 0;
      checkpointBytes = 0;
      journalBytesSeen = 0;
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
      // Fold a patch head now: later folds start from it, never from dropped records.
      stateOf(h);
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
