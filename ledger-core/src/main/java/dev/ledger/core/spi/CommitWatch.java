package dev.ledger.core.spi;

import java.util.function.BooleanSupplier;

/**
 * One follower's view of a ledger's commits: what it waits on between two reads of the
 * journal. A backend hands one out per follower ({@link LedgerBackend#watchCommits}); closing
 * it releases whatever the backend holds for it (a directory watch, a registration).
 *
 * <p>The protocol, which loses no commit: read {@link #version()}, read the journal after the
 * follower's cursor, and only if that found nothing, {@link #await} the version read. The
 * backend decides how long one wait may last at most: a backend whose every commit fires the
 * signal (in memory) may wait for the whole timeout; one that learns of other processes'
 * commits from the file system bounds each wait, so that a missed notification costs at most
 * that bound.
 */
public interface CommitWatch extends AutoCloseable {
  /**
   * The version of the ledger's {@link CommitSignal}, read before each look at the journal.
   *
   * @return the version
   */
  long version();

  /**
   * Waits until the version is no longer {@code seen}, {@code stop} says true, the backend's
   * polling bound passes, or {@code timeoutNanos} pass, whichever is first. Returning says only
   * that it is worth reading the journal again, not that something was committed.
   *
   * @param seen the version read before the last look at the journal
   * @param timeoutNanos the caller's remaining time
   * @param stop checked at every wake-up; true ends the wait
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  void await(long seen, long timeoutNanos, BooleanSupplier stop) throws InterruptedException;

  /** Wakes a thread waiting in {@link #await} so that it checks its stop condition. */
  void wake();

  /** Releases what the backend holds for this watch. Idempotent; never throws. */
  @Override
  void close();

  /**
   * A watch on {@code signal} alone, for backends whose every commit fires it: each wait lasts
   * up to the caller's timeout.
   *
   * @param signal the ledger's signal
   * @return a watch that holds nothing
   */
  static CommitWatch of(CommitSignal signal) {
    return new CommitWatch() {
      @Override
      public long version() {
        return signal.version();
      }

      @Override
      public void await(long seen, long timeoutNanos, BooleanSupplier stop)
          throws InterruptedException {
        signal.await(seen, timeoutNanos, stop);
      }

      @Override
      public void wake() {
        signal.wakeAll();
      }

      @Override
      public void close() {}
    };
  }
}
