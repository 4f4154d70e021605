package dev.ledger.core.fs;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.base.Preconditions;
import dev.ledger.core.CommitListener;
import dev.ledger.core.CommitResult;
import dev.ledger.core.Event;
import dev.ledger.core.internal.io.Identifiers;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A best-effort trace mirror of a store's commits: one append-only JSON Lines file per ledger,
 * for {@code tail -f}, {@code grep} and {@code jq} while a process runs. Register it with a
 * store's {@code addCommitListener}.
 *
 * <pre>
 * &lt;dir&gt;/&lt;root dir&gt;.trace.jsonl     root dir: the root id as the file store names its
 *                                 directory (plain ids are themselves)
 * one line per commit, canonical JSON (keys sorted), appended in commit order:
 * {"committedAt":"2026-11-30T10:00:00Z","events":[{"commandId":"cmd_…","id":"…",
 *  "payload":{…},"sequence":7,"type":"task.started"}],"format":1,"revision":5,"root":"run-1"}
 * </pre>
 * ({@code commandId} and {@code operationId} appear on an event only when it has them.)
 *
 * <p><b>Never holds a commit back.</b> The store calls {@link #committed} under the ledger's
 * lock; it only offers the result to a bounded queue and returns. A daemon thread encodes the
 * lines and appends them, one write per ledger per batch, never forced. When the queue is full
 * the commit's line is dropped and counted ({@link #dropped()}); when the disk fails the
 * lines are counted ({@link #failed()}), the failure is logged at most once a minute, and the
 * file is opened again for the next line. Neither reaches the committing thread.
 *
 * <p><b>Not durable, not complete.</b> The journal is the record; this is a view of it. Lines
 * are not forced, so a power cut may lose or tear the last ones; a crash between a commit's
 * force and the line's write loses the line; a full queue or a failing disk drops lines; and
 * commits made by other stores or processes on the same directory never appear here. After a
 * crash the file may end with a partial line, and lines of commits that were acknowledged may
 * be missing. For a complete, ordered history read the ledger's events.
 *
 * <p>Thread-safe. {@link #close} writes what is queued (for at most five seconds) and closes
 * the files; lines offered after it are dropped.
 */
public final class TraceSink implements CommitListener, AutoCloseable {
  /** Queue capacity of {@link #open(Path)}: commits waiting for the writer thread. */
  public static final int DEFAULT_CAPACITY = 4096;

  private static final Logger LOG = LoggerFactory.getLogger(TraceSink.class);
  private static final int FORMAT = 1;
  private static final int MAX_OPEN_FILES = 32;
  private static final long LOG_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);
  private static final AtomicLong THREADS = new AtomicLong();

  private final Path dir;
  private final ArrayBlockingQueue<CommitResult> queue;
  private final Thread writer;
  private final AtomicLong accepted = new AtomicLong();
  private final AtomicLong processed = new AtomicLong();
  private final AtomicLong written = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final Object progress = new Object();
  private volatile boolean closed;
  /** Open files by root id, least recently written first; the writer thread's only. */
  private final LinkedHashMap<String, FileChannel> files = new LinkedHashMap<>(16, 0.75f, true);
  private long lastLog = System.nanoTime() - LOG_EVERY_NANOS;
  private long failedAtLastLog;

  private TraceSink(Path dir, int capacity) {
    this.dir = dir;
    this.queue = new ArrayBlockingQueue<>(capacity);
    this.writer = new Thread(this::run, "ledger-trace-sink-" + THREADS.incrementAndGet());
    writer.setDaemon(true);
  }

  /**
   * A sink writing into {@code dir} (created when the first line is written) with a queue of
   * {@link #DEFAULT_CAPACITY} commits.
   *
   * @param dir the directory of the trace files
   * @return the running sink
   * @throws NullPointerException if {@code dir} is null
   */
  public static TraceSink open(Path dir) {
    return open(dir, DEFAULT_CAPACITY);
  }

  /**
   * A sink writing into {@code dir} (created when the first line is written) with a queue of
   * {@code capacity} commits. Touches no file: a directory that cannot be written shows as
   * {@link #failed()} lines, never as an exception.
   *
   * @param dir the directory of the trace files
   * @param capacity commits that may wait for the writer thread before lines are dropped, at
   *     least 1
   * @return the running sink
   * @throws NullPointerException if {@code dir} is null
   * @throws IllegalArgumentException if {@code capacity} is below 1
   */
  public static TraceSink open(Path dir, int capacity) {
    Preconditions.checkNotNull(dir, "dir");
    Preconditions.checkArgument(capacity >= 1, "capacity must be at least 1: %s", capacity);
    TraceSink sink = new TraceSink(dir.toAbsolutePath(), capacity);
    sink.writer.start();
    return sink;
  }

  /**
   * Queues the commit's line, or drops and counts it if the queue is full or the sink is
   * closed. Never blocks, never throws.
   *
   * @param result the commit
   */
  @Override
  public void committed(CommitResult result) {
    if (result == null || closed) {
      dropped.incrementAndGet();
      return;
    }
    accepted.incrementAndGet();
    if (!queue.offer(result)) {
      accepted.decrementAndGet();
      dropped.incrementAndGet();
    }
  }

  /**
   * The trace file of a ledger (whether or not it exists yet).
   *
   * @param rootId the ledger's root id
   * @return {@code <dir>/<root dir>.trace.jsonl}
   * @throws NullPointerException if {@code rootId} is null
   * @throws dev.ledger.core.InvalidIdentifierException if {@code rootId} is not a valid root id
   */
  public Path file(String rootId) {
    return dir.resolve(Identifiers.toDirectoryName("root id", rootId) + ".trace.jsonl");
  }

  /**
   * Commits waiting in the queue for the writer thread now.
   *
   * @return the count, at most the capacity
   */
  public int queued() {
    return queue.size();
  }

  /**
   * Lines appended to the files so far (not forced).
   *
   * @return the count
   */
  public long written() {
    return written.get();
  }

  /**
   * Lines dropped because the queue was full or the sink was closed.
   *
   * @return the count
   */
  public long dropped() {
    return dropped.get();
  }

  /**
   * Lines lost to I/O errors (the directory or file could not be created or written).
   *
   * @return the count
   */
  public long failed() {
    return failed.get();
  }

  /**
   * Waits until every line queued before the call was written or failed.
   *
   * @param timeout how long to wait at most
   * @return true if the queue drained in time
   * @throws InterruptedException if the thread is interrupted while waiting
   * @throws NullPointerException if {@code timeout} is null
   */
  public boolean awaitIdle(Duration timeout) throws InterruptedException {
    Preconditions.checkNotNull(timeout, "timeout");
    long target = accepted.get();
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (progress) {
      while (processed.get() < target) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(progress, left);
      }
    }
    return true;
  }

  /**
   * Stops taking lines, writes what is queued (waiting at most five seconds), and closes the
   * files. Idempotent; never throws.
   */
  @Override
  public void close() {
    closed = true;
    try {
      writer.join(CLOSE_WAIT.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return "TraceSink[" + dir + ", written=" + written + ", dropped=" + dropped + ", failed="
        + failed + "]";
  }

  // ---------------------------------------------------------------- the writer thread

  private void run() {
    List<CommitResult> batch = new ArrayList<>();
    try {
      while (true) {
        CommitResult first;
        try {
          first = queue.poll(100, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          break;
        }
        if (first == null) {
          if (closed) {
            break;
          }
          continue;
        }
        batch.add(first);
        queue.drainTo(batch, 1023);
        writeBatch(batch);
        processed.addAndGet(batch.size());
        batch.clear();
        synchronized (progress) {
          progress.notifyAll();
        }
      }
    } finally {
      for (FileChannel channel : files.values()) {
        closeQuietly(channel);
      }
      files.clear();
      // Whatever is still queued is dropped, and waiters are told.
      int left = queue.size();
      queue.clear();
      dropped.addAndGet(left);
      processed.addAndGet(left);
      synchronized (progress) {
        progress.notifyAll();
      }
    }
  }

  /** Appends the batch's lines, one write per ledger, in queue order within each ledger. */
  private void writeBatch(List<CommitResult> batch) {
    Map<String, ByteArrayOutputStream> byRoot = new LinkedHashMap<>();
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (CommitResult result : batch) {
      try {
        byte[] line = encode(result);
        ByteArrayOutputStream out = byRoot.computeIfAbsent(result.rootId(),
            r -> new ByteArrayOutputStream());
        out.write(line);
        out.write('\n');
        counts.merge(result.rootId(), 1, Integer::sum);
      } catch (IOException | RuntimeException e) {
        failure("encoding a trace line of ledger '" + result.rootId() + "'", 1, e);
      }
    }
    for (Map.Entry<String, ByteArrayOutputStream> entry : byRoot.entrySet()) {
      String root = entry.getKey();
      int lines = counts.get(root);
      try {
        FileChannel channel = channel(root);
        ByteBuffer bytes = ByteBuffer.wrap(entry.getValue().toByteArray());
        while (bytes.hasRemaining()) {
          channel.write(bytes);
        }
        written.addAndGet(lines);
      } catch (IOException | RuntimeException e) {
        FileChannel broken = files.remove(root);
        if (broken != null) {
          closeQuietly(broken);
        }
        failure("appending to " + file(root), lines, e);
      }
    }
  }

  private FileChannel channel(String root) throws IOException {
    FileChannel channel = files.get(root);
    if (channel != null) {
      return channel;
    }
    Files.createDirectories(dir);
    channel = FileChannel.open(file(root), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.APPEND);
    files.put(root, channel);
    if (files.size() > MAX_OPEN_FILES) {
      Iterator<Map.Entry<String, FileChannel>> eldest = files.entrySet().iterator();
      closeQuietly(eldest.next().getValue());
      eldest.remove();
    }
    return channel;
  }

  private static byte[] encode(CommitResult result) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    ObjectNode line = f.objectNode();
    line.put("committedAt", result.committedAt().toString());
    ArrayNode events = line.putArray("events");
    for (Event e : result.events()) {
      ObjectNode event = events.addObject();
      if (e.commandId() != null) {
        event.put("commandId", e.commandId());
      }
      event.put("id", e.id());
      if (e.operationId() != null) {
        event.put("operationId", e.operationId());
      }
      event.set("payload", e.payload());
      event.put("sequence", e.sequence());
      event.put("type", e.type());
    }
    line.put("format", FORMAT);
    line.put("revision", result.revision());
    line.put("root", result.rootId());
    return LedgerJson.canonical(line);
  }

  /** Counts lost lines and logs the first failure, then at most one line a minute. */
  private void failure(String what, int lines, Exception e) {
    long total = failed.addAndGet(lines);
    long now = System.nanoTime();
    if (now - lastLog >= LOG_EVERY_NANOS) {
      LOG.warn("Trace sink {}: {} failed; {} trace lines lost since the last report ({} in "
          + "all). Commits are not affected.", dir, what, total - failedAtLastLog, total, e);
      lastLog = now;
      failedAtLastLog = total;
    }
  }

  private static void closeQuietly(FileChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      LOG.debug("closing a trace file failed", e);
    }
  }
}
