package dev.ledger.collections.patchlog;

import dev.ledger.core.spi.LoggedCommit;
import dev.ledger.core.spi.PatchLog;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Reads and decodes the commits after a revision on a thread of its own, while the caller
 * does something else and then folds them: a cold open loads the checkpoint's documents into
 * its view while the journal after the checkpoint is parsed, and folds each commit as the
 * reader hands it over (a second core does the parsing). The commits come in batches through
 * a bounded queue, so the reader runs at most a few batches ahead. Failures of the reader are
 * rethrown to the caller by {@link #forEach}; {@link #close} stops the reader and waits for it
 * (its journal files are closed when it ends). One use, by one caller thread.
 */
final class JournalPrefetch implements AutoCloseable {
  private static final int BATCH = 64;
  private static final Object END = new Object();
  private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(16);
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
    reader = new Thread(() -> read(log, revision), "ledger-collections-open-" + partition);
    reader.setDaemon(true);
    reader.start();
  }

  private void read(PatchLog log, long revision) {
    Object last = END;
    List<LoggedCommit> batch = new ArrayList<>(BATCH);
    try (Stream<LoggedCommit> commits = log.patchesAfter(revision)) {
      Iterator<LoggedCommit> it = commits.iterator();
      while (!cancelled && it.hasNext()) {
        batch.add(it.next());
        if (batch.size() == BATCH) {
          hand(batch);
          batch = new ArrayList<>(BATCH);
        }
      }
    } catch (RuntimeException | Error e) {
      last = e;
    }
    // The commits read before a failure too: the caller folds them before it rethrows.
    if (!batch.isEmpty()) {
      hand(batch);
    }
    hand(last);
  }

  /** Queues {@code item} unless the caller gave up (then drops it). */
  private void hand(Object item) {
    try {
      while (!cancelled) {
        if (queue.offer(item, 10, TimeUnit.MILLISECONDS)) {
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
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
      @SuppressWarnings("unchecked") // only batches, END and failures are queued
      List<LoggedCommit> batch = (List<LoggedCommit>) next;
      batch.forEach(fold);
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
