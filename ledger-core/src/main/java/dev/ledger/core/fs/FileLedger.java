package dev.ledger.core.fs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.core.CommandConflictException;
import dev.ledger.core.CommitResult;
import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.Cursor;
import dev.ledger.core.Durability;
import dev.ledger.core.Event;
import dev.ledger.core.EventPage;
import dev.ledger.core.LedgerFailedException;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.LedgerNotFoundException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LimitExceededException;
import dev.ledger.core.ReadOnlyStoreException;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.io.FileLocks;
import dev.ledger.core.io.SafeFiles;
import dev.ledger.core.journal.CommitRecord;
import dev.ledger.core.journal.CursorCodec;
import dev.ledger.core.journal.EventPages;
import dev.ledger.core.journal.JournalLine;
import dev.ledger.core.journal.PositionedRecord;
import dev.ledger.core.spi.CommitRequest;
import dev.ledger.core.spi.LedgerBackend;
import dev.ledger.core.spi.StoredState;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One ledger in a directory: the writer and reader paths.
 *
 * <p><b>Writer path.</b> Lock (in-process, then the {@code .lock} file) → make sure the
 * cached tail is current (the last segment's size and the absence of a next segment prove no
 * other process committed; otherwise replay what they appended) → command replay or conflict
 * → revision check → cut a torn tail if recovery found one → append one record line →
 * {@code force} (the commit point) → every {@code checkpointInterval} commits, write the
 * command index entries and {@code state.json} → unlock. One forced write per commit in the
 * common case.
 *
 * <p><b>Reader path.</b> No lock. The latest position this process saw committed (by its
 * writer or an earlier read) is cached with its state: if the journal has not grown since
 * (one {@code stat} of the segment and one of the next segment's name), it is the answer;
 * if it has grown, only the new records are applied. Otherwise (first read, or the journal
 * no longer reaches the cached position) read {@code state.json} and apply the records after
 * its position. Reads stop before an incomplete or torn tail.
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
  private final boolean sync;
  private final long maxCheckpointBytes;
  /** The store's name when it is read-only (commits refused), else null. */
  private final String readOnlyStore;

  /** The writer's view of the journal end; guarded by the ledger lock. */
  private Tail tail;
  private volatile Throwable failure;
  private volatile Published published;

  private static final class Tail {
    long revision;
    long nextSequence = 1;
    long segment = 1;
    long end;
    JsonNode state;
    Instant updatedAt;
    FileChannel channel;
    int sinceCheckpoint;
    final Map<String, CommandIndex.Entry> recentCommands = new LinkedHashMap<>();
  }

  /** The latest position this process has seen committed, with its state: a read cache. */
  private record Published(JsonNode state, long revision, Instant updatedAt, long nextSequence,
      long segment, long end) {}

  FileLedger(String root, Path dir, LedgerOptions options, String readOnlyStore) {
    this.root = root;
    this.readOnlyStore = readOnlyStore;
    this.dir = dir;
    this.lockFile = dir.resolve(".lock");
    this.stateFile = dir.resolve("state.json");
    this.options = options;
    this.sync = options.durability() == Durability.SYNC;
    this.journal = new JournalFiles(dir.resolve("journal"), root,
        JournalLine.maxLineBytes(options));
    this.commands = new CommandIndex(dir.resolve("commands"));
    this.maxCheckpointBytes = 2L * options.maxStateBytes() + 64 * 1024;
  }

  @Override
  public String rootId() {
    return root;
  }

  boolean exists() {
    return Files.exists(journal.segment(1)) || Files.exists(stateFile);
  }

  // ---------------------------------------------------------------- reader path

  @Override
  public Optional<StoredState> read() {
    Published p = published;
    if (p != null) {
      if (isLatest(p)) {
        return Optional.of(new StoredState(p.state(), p.revision(), p.updatedAt()));
      }
      Optional<StoredState> forward = readForward(p);
      if (forward != null) {
        return forward;
      }
    }
    Tail t = start(Checkpoint.read(stateFile, root, maxCheckpointBytes));
    if (!Files.exists(journal.segment(t.segment))) {
      return missingSegment(t);
    }
    try {
      checkPosition(t);
    } catch (IOException e) {
      throw new LedgerIOException("reading journal", journal.segment(t.segment), e);
    }
    return readFrom(t);
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
    t.updatedAt = p.updatedAt();
    return readFrom(t);
  }

  private Optional<StoredState> readFrom(Tail t) {
    try (JournalScanner scan = scanner(t)) {
      PositionedRecord r;
      while ((r = scan.next()) != null) {
        apply(t, r, false);
      }
      t.segment = scan.segment();
      t.end = scan.end();
    }
    if (t.revision == 0) {
      return Optional.empty();
    }
    publish(t);
    return Optional.of(new StoredState(t.state, t.revision, t.updatedAt));
  }

  /** Offers a position to the read cache; a newer one already there is kept. */
  private void publish(Tail t) {
    Published p = published;
    if (p == null || p.revision() <= t.revision) {
      published = new Published(t.state, t.revision, t.updatedAt, t.nextSequence, t.segment,
          t.end);
    }
  }

  private boolean isLatest(Published p) {
    try {
      return Files.size(journal.segment(p.segment())) == p.end()
          && (p.segment() == p.revision() + 1 || !Files.exists(journal.segment(p.revision() + 1)));
    } catch (NoSuchFileException e) {
      return false;
    } catch (IOException e) {
      throw new LedgerIOException("checking journal size", journal.segment(p.segment()), e);
    }
  }

  private Optional<StoredState> missingSegment(Tail t) {
    if (t.revision == 0) {
      return Optional.empty();
    }
    throw new CorruptLedgerException(journal.segment(t.segment), -1,
        "the checkpoint at revision " + t.revision + " points into this missing segment");
  }

  @Override
  public EventPage events(Cursor after, int limit) {
    if (after.isStart()) {
      if (!Files.exists(journal.segment(1))) {
        missingSegment(start(Checkpoint.read(stateFile, root, maxCheckpointBytes)));
        return new EventPage(java.util.List.of(), after, false);
      }
      return EventPages.page(root, new JournalScanner(journal, 1, 0, 1, 1), 0, after, limit);
    }
    CursorCodec.Position position = CursorCodec.decode(root, after);
    return EventPages.page(root, verified(position), position.after(), after, limit);
  }

  @Override
  public Stream<Event> replay(Cursor after) {
    if (after.isStart()) {
      if (!Files.exists(journal.segment(1))) {
        missingSegment(start(Checkpoint.read(stateFile, root, maxCheckpointBytes)));
        return Stream.empty();
      }
      return EventPages.stream(new JournalScanner(journal, 1, 0, 1, 1), 0);
    }
    CursorCodec.Position position = CursorCodec.decode(root, after);
    return EventPages.stream(verified(position), position.after());
  }

  /** A scanner at the cursor's position hint, once the record there proves the hint. */
  private JournalScanner verified(CursorCodec.Position position) {
    if (!exists()) {
      throw new LedgerNotFoundException(root);
    }
    CommitRecord record = position.segment() < 1 ? null
        : recordAt(position.segment(), position.offset());
    if (record == null || !EventPages.startsReadAfter(record, position.after())) {
      throw CursorCodec.invalid(root, "cursor position (segment " + position.segment()
          + ", offset " + position.offset() + ", after sequence " + position.after()
          + ") does not match the journal");
    }
    return new JournalScanner(journal, position.segment(), position.offset(), record.revision(),
        record.firstSequence());
  }

  /** The valid record whose line starts at {@code offset}, or null if there is none. */
  private CommitRecord recordAt(long segment, long offset) {
    Path path = journal.segment(segment);
    try {
      if (offset > 0) {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
          ByteBuffer previous = ByteBuffer.allocate(1);
          if (channel.read(previous, offset - 1) != 1 || previous.get(0) != '\n') {
            return null;
          }
        }
      }
      try (LineReader reader = new LineReader(path, offset, journal.maxLine())) {
        LineReader.Line line = reader.next();
        if (line == null || line.kind() != LineReader.Kind.COMPLETE) {
          return null;
        }
        CommitRecord record = JournalLine.decode(line.bytes(), line.length());
        return record.root().equals(root) && (offset > 0 || record.revision() == segment)
            ? record : null;
      }
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      throw new LedgerIOException("reading journal record", path, e);
    } catch (JournalLine.DefectException | CommitRecord.FutureFormatException e) {
      return null;
    }
  }

  // ---------------------------------------------------------------- writer path

  @Override
  public CommitResult commit(CommitRequest request) {
    if (readOnlyStore != null) {
      throw new ReadOnlyStoreException(readOnlyStore, root);
    }
    checkNotFailed();
    ensureDirectories();
    try (FileLocks.Held held = FileLocks.acquire(lockFile, options.lockTimeout())) {
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
      if (line.length > journal.maxLine()) {
        throw new LimitExceededException(root, "commit record", journal.maxLine(), line.length);
      }
      held.verify();
      long offset = append(t, line, record.revision());
      t.revision = record.revision();
      t.nextSequence = record.nextSequence();
      t.state = request.state();
      t.updatedAt = record.committedAt();
      if (record.commandId() != null) {
        t.recentCommands.put(record.commandId(), new CommandIndex.Entry(record.commandDigest(),
            record.revision(), t.segment, offset));
      }
      t.sinceCheckpoint++;
      publish(t);
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
    CommitRecord recorded = recordAt(entry.segment(), entry.offset());
    if (recorded == null || recorded.revision() != entry.revision()
        || !id.equals(recorded.commandId())) {
      throw new CorruptLedgerException(journal.segment(entry.segment()), entry.offset(),
          "command index says " + id + " was committed at revision " + entry.revision()
              + " here, but no such record is here");
    }
    if (!recorded.commandDigest().equals(request.commandDigest())) {
      throw new CommandConflictException(root, id, recorded.revision(),
          recorded.commandDigest(), request.commandDigest());
    }
    return recorded.result(CursorCodec.encode(root, recorded.lastSequence(), entry.segment(),
        entry.offset()), true);
  }

  /** Appends one line and forces it; returns the offset it starts at. */
  private long append(Tail t, byte[] line, long revision) {
    Path path = journal.segment(t.segment);
    try {
      boolean created = false;
      if (t.channel == null || t.end >= options.segmentBytes()) {
        path = journal.segment(revision);
        FileChannel next = SafeFiles.open(path, Set.of(StandardOpenOption.CREATE_NEW,
            StandardOpenOption.READ, StandardOpenOption.WRITE));
        if (t.channel != null) {
          t.channel.close();
        }
        t.channel = next;
        t.segment = revision;
        t.end = 0;
        created = true;
      }
      SafeFiles.writeFully(t.channel, ByteBuffer.wrap(line), t.end);
      if (sync) {
        // fdatasync covers the data and the new file size, which is all a reader needs.
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
          long size = t.channel.size();
          boolean rolled = t.segment != t.revision + 1
              && Files.exists(journal.segment(t.revision + 1));
          if (size == t.end && !rolled) {
            return t;
          }
          if (size > t.end || rolled) {
            advance(t);
            return t;
          }
        }
        closeChannel(t);
        tail = null;
      }
      t = start(Checkpoint.read(stateFile, root, maxCheckpointBytes));
      Files.deleteIfExists(SafeFiles.tempSibling(stateFile));
      advance(t);
      tail = t;
      return t;
    } catch (IOException e) {
      throw new LedgerIOException("recovering journal", journal.dir(), e);
    }
  }

  /** A tail positioned at {@code checkpoint}, or at the start of an empty ledger. */
  private Tail start(Checkpoint checkpoint) {
    Tail t = new Tail();
    if (checkpoint != null) {
      t.revision = checkpoint.revision();
      t.nextSequence = checkpoint.nextSequence();
      t.segment = checkpoint.segment();
      t.end = checkpoint.offset();
      t.state = checkpoint.state();
      t.updatedAt = checkpoint.updatedAt();
    }
    return t;
  }

  private JournalScanner scanner(Tail t) {
    return new JournalScanner(journal, t.segment, t.end, t.revision + 1, t.nextSequence);
  }

  /** Checks that a checkpoint's journal position is a record boundary inside its segment. */
  private void checkPosition(Tail t) throws IOException {
    if (t.end == 0) {
      return;
    }
    Path path = journal.segment(t.segment);
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      long size = channel.size();
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

  /** Replays into {@code t} every record after its position; cuts a torn tail. */
  private void advance(Tail t) throws IOException {
    if (!Files.exists(journal.segment(t.segment))) {
      missingSegment(t);
      return;
    }
    checkPosition(t);
    long cut;
    long segment;
    try (JournalScanner scan = scanner(t)) {
      PositionedRecord r;
      while ((r = scan.next()) != null) {
        apply(t, r, true);
      }
      segment = scan.segment();
      t.end = scan.end();
      cut = scan.tornAt();
    }
    if (t.channel == null || segment != t.segment) {
      closeChannel(t);
      t.channel = FileChannel.open(journal.segment(segment), StandardOpenOption.READ,
          StandardOpenOption.WRITE);
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
  }

  private void apply(Tail t, PositionedRecord positioned, boolean writer) {
    CommitRecord r = positioned.record();
    if (r.state() == null && t.state == null) {
      throw new CorruptLedgerException(journal.segment(positioned.segment()), positioned.offset(),
          "revision " + r.revision() + " is a patch but no state precedes it");
    }
    t.state = r.applyTo(t.state);
    t.revision = r.revision();
    t.nextSequence = r.nextSequence();
    t.updatedAt = r.committedAt();
    if (writer) {
      if (r.commandId() != null) {
        t.recentCommands.put(r.commandId(), new CommandIndex.Entry(r.commandDigest(),
            r.revision(), positioned.segment(), positioned.offset()));
      }
      t.sinceCheckpoint++;
    }
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
        t.segment, t.end, t.state);
    SafeFiles.replace(stateFile, checkpoint.encode(), sync);
    t.recentCommands.clear();
    t.sinceCheckpoint = 0;
  }

  private void ensureDirectories() {
    if (Files.isDirectory(journal.dir())) {
      return;
    }
    try {
      SafeFiles.createDirectories(journal.dir(), sync);
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
      return;
    }
    try (FileLocks.Held held = FileLocks.acquire(lockFile, options.lockTimeout())) {
      if (failure == null) {
        Tail t = currentTail();
        if (t.sinceCheckpoint > 0) {
          checkpoint(t);
        }
      }
    } catch (IOException e) {
      throw new LedgerIOException("writing the final checkpoint", stateFile, e);
    } finally {
      if (tail != null) {
        closeChannel(tail);
        tail = null;
      }
      published = null;
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
