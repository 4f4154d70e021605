package dev.ledger.collections.patchlog;

import dev.ledger.core.spi.LoggedCommit;
import dev.ledger.core.spi.PatchLog;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Reads and decodes the commits after a revision on a thread of its own, while the caller
 * does something else and then folds them: a cold open loads the checkpoint's documents into
 * its view while the journal after the checkpoint is parsed, and folds each commit as the
 * reader hands it over (a second core does the parsing). The commits come in batches through
 * a queue bounded by the heap their decoded commits take ({@link #BUDGET_KIB}, estimated by
 * {@link #estimate}), not by a few batches: the caller's load of a checkpoint takes about as
 * long as decoding the journal after it, and a reader held a few batches ahead would wait
 * through the load and decode the journal only while the caller folds it, so the open would
 * take the load and the decoding one after the other. Failures of the reader are rethrown to
 * the caller by {@link #forEach}; {@link #close} stops the reader and waits for it (its
 * journal files are closed when it ends). One use, by one caller thread.
 */
final class JournalPrefetch implements AutoCloseable {
  private static final int BATCH = 64;
  /**
   * The estimated heap, in KiB, of the decoded commits the reader may hold ahead of the
   * caller in queued batches (besides the batch of at most {@code BATCH} commits it fills);
   * a batch estimated larger than this alone waits until the caller has folded every
   * earlier one.
   */
  static final int BUDGET_KIB = 64 * 1024;
  private static final Object END = new Object();
  private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
  /** Budget left, in KiB: the reader takes a batch's estimate, the caller gives it back. */
  private final Semaphore budget;
  private final int budgetKib;
  private final Thread reader;
  private volatile boolean cancelled;

  /**
   * Starts reading {@code log.patchesAfter(revision)}.
   *
   * @param log the partition's log
   * @param revision the revision the caller's view will hold when it folds
   * @param partition the partition's id, for the thread's name
   */
  JournalPrefetch(PatchLog log, long revision, String partition) {
    this(log, revision, partition, BUDGET_KIB);
  }

  /** As above, with a budget of {@code budgetKib} KiB instead of {@link #BUDGET_KIB}. */
  JournalPrefetch(PatchLog log, long revision, String partition, int budgetKib) {
    this.budgetKib = budgetKib;
    this.budget = new Semaphore(budgetKib);
    reader = new Thread(() -> read(log, revision), "ledger-collections-open-" + partition);
    reader.setDaemon(true);
    reader.start();
  }

  private void read(PatchLog log, long revision) {
    Object last = END;
    List<LoggedCommit> batch = new ArrayList<>(BATCH);
    long bytes = 0;
    try (Stream<LoggedCommit> commits = log.patchesAfter(revision)) {
      Iterator<LoggedCommit> it = commits.iterator();
      while (!cancelled && it.hasNext()) {
        LoggedCommit commit = it.next();
        batch.add(commit);
        bytes += estimate(commit);
        if (batch.size() == BATCH) {
          handBatch(batch, bytes);
          batch = new ArrayList<>(BATCH);
          bytes = 0;
        }
      }
    } catch (RuntimeException | Error e) {
      last = e;
    }
    // The commits read before a failure too: the caller folds them before it rethrows.
    if (!batch.isEmpty()) {
      handBatch(batch, bytes);
    }
    hand(last);
  }

  /**
   * Queues {@code batch}, of {@code bytes} estimated, once the budget has room for it, unless
   * the caller gave up (then drops it).
   */
  private void handBatch(List<LoggedCommit> batch, long bytes) {
    int kib = (int) Math.min(budgetKib, (bytes + 1023) / 1024);
    try {
      while (!cancelled) {
        if (budget.tryAcquire(kib, 10, TimeUnit.MILLISECONDS)) {
          hand(new Batch(batch, kib));
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Queues {@code item} unless the caller gave up (then drops it); the queue is unbounded. */
  private void hand(Object item) {
    if (!cancelled) {
      queue.add(item);
    }
  }

  /** A batch of commits and the budget, in KiB, it holds until the caller has folded it. */
  private record Batch(List<LoggedCommit> commits, int kib) {}

  /**
   * A rough estimate of the heap a decoded commit holds, in bytes: its record, events, and
   * its state or patch tree (each node and member with the JVM's usual overheads, strings at
   * a byte a character). Only the budget uses it; linear in the tree's nodes, which the reader
   * has just built.
   */
  static long estimate(LoggedCommit commit) {
    long bytes = 64 + 96L * commit.events().size();
    JsonNode tree = commit.state() != null ? commit.state() : commit.patch();
    return bytes + estimate(tree);
  }

  private static long estimate(JsonNode node) {
    if (node.isObject()) {
      long bytes = 64;
      for (Map.Entry<String, JsonNode> member : node.properties()) {
        bytes += 72 + member.getKey().length() + estimate(member.getValue());
      }
      return bytes;
    }
    if (node.isArray()) {
      long bytes = 48;
      for (JsonNode element : node) {
        bytes += 8 + estimate(element);
      }
      return bytes;
    }
    if (node.isTextual()) {
      return 56 + node.textValue().length();
    }
    return 24;
  }

  /**
   * Hands every commit to {@code fold}, in revision order, as the reader delivers them.
   *
   * @throws RuntimeException what the reader failed with (a {@code LedgerException} for a
   *     damaged or unreadable journal), after the commits before the failure were folded
   * @throws IllegalStateException if the calling thread is interrupted while it waits
   */
  void forEach(Consumer<LoggedCommit> fold) {
    while (true) {
      Object next;
      try {
        next = queue.take();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while reading the journal of "
            + reader.getName(), e);
      }
      if (next == END) {
        return;
      }
      if (next instanceof RuntimeException e) {
        throw e;
      }
      if (next instanceof Error e) {
        throw e;
      }
      // Only batches, END and failures are queued.
      Batch batch = (Batch) next;
      batch.commits().forEach(fold);
      budget.release(batch.kib());
    }
  }

  /** Stops the reader if it still runs and waits until it has closed the journal. */
  @Override
  public void close() {
    cancelled = true;
    queue.clear();
    boolean interrupted = false;
    while (reader.isAlive()) {
      try {
        reader.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
