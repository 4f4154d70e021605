package dev.ledger.core.spi;

import com.google.common.base.Preconditions;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * A per-ledger signal that a backend fires after each durable commit (and, for a backend that
 * watches for other writers, whenever they may have committed), so that followers waiting in
 * this process wake at once instead of polling.
 *
 * <p>The signal is a version counter: a waiter reads {@link #version()} <em>before</em> it
 * reads the journal, and if the read found nothing new, waits with {@link #await} for the
 * version to move past the one it read. A commit that lands between the read and the wait
 * has already moved it, so no wake-up is lost.
 *
 * <p>Firing costs an atomic increment and a volatile read when nobody waits; the lock is taken
 * only to wake waiters. Thread-safe.
 */
public final class CommitSignal {
  private final AtomicLong version = new AtomicLong();
  private final AtomicInteger waiters = new AtomicInteger();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();

  /** A signal at version 0 with no waiters. */
  public CommitSignal() {}

  /**
   * The current version; it grows by one with every {@link #fire}.
   *
   * @return the version
   */
  public long version() {
    return version.get();
  }

  /** Moves the version on and wakes every waiter. Never blocks for long, never throws. */
  public void fire() {
    version.incrementAndGet();
    if (waiters.get() > 0) {
      wakeAll();
    }
  }

  /**
   * Wakes every waiter without moving the version, so that each re-checks its own stop
   * condition (a follower closed, a store closed).
   */
  public void wakeAll() {
    lock.lock();
    try {
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until the version is no longer {@code seen}, {@code stop} says true (checked at every
   * wake-up), or {@code timeoutNanos} pass.
   *
   * @param seen the version read before the caller's last look at the journal
   * @param timeoutNanos the longest wait; zero or less returns at once
   * @param stop checked before waiting and at every wake-up; true ends the wait
   * @return true if the version moved, false on timeout or stop
   * @throws InterruptedException if the thread is interrupted while waiting
   * @throws NullPointerException if {@code stop} is null
   */
  public boolean await(long seen, long timeoutNanos, BooleanSupplier stop)
      throws InterruptedException {
    Preconditions.checkNotNull(stop, "stop");
    waiters.incrementAndGet();
    try {
      // The waiter count is raised before the version is read, and fire() moves the version
      // before it reads the count: one of the two always sees the other.
      long remaining = timeoutNanos;
      lock.lockInterruptibly();
      try {
        while (version.get() == seen) {
          if (stop.getAsBoolean() || remaining <= 0) {
            return false;
          }
          remaining = changed.awaitNanos(remaining);
        }
        return true;
      } finally {
        lock.unlock();
      }
    } finally {
      waiters.decrementAndGet();
    }
  }

  /**
   * {@link #await} with a timeout in any unit.
   *
   * @param seen the version read before the caller's last look at the journal
   * @param timeout the longest wait
   * @param unit the unit of {@code timeout}
   * @param stop checked before waiting and at every wake-up
   * @return true if the version moved
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  public boolean await(long seen, long timeout, TimeUnit unit, BooleanSupplier stop)
      throws InterruptedException {
    return await(seen, unit.toNanos(timeout), stop);
  }

  @Override
  public String toString() {
    return "CommitSignal[version=" + version.get() + ", waiters=" + waiters.get() + "]";
  }
}
