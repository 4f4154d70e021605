package dev.ledger.core.spi;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A reentrant lock for a turn that threads take one after another for short, CPU-bound
 * stretches while the forces that make their writes durable run beside it (group commit):
 * the update turn of a file ledger ({@link LedgerBackend#inUpdateTurn}), the writer lock of
 * a collection partition. It hands the turn from one thread to the next without waking a
 * parked thread each time.
 *
 * <p><b>Why it spins.</b> With a plain lock every hand-over wakes a parked thread, which on a
 * small or virtual machine (where a processor with nothing to run halts, and waking it is
 * slow) costs about as much as the stretch itself, and the turn sits idle meanwhile: the
 * writes of one ledger then go at one per stretch plus one wake-up. Here one waiting thread at a time (the <i>spinner</i>) polls the lock instead
 * of parking, for at most twice the recent time the turn was held (bounded by
 * {@link #MAX_SPIN_NANOS}), and takes it the moment it is free. Every other waiter parks as
 * before, so at most one thread burns a processor while waiting, and a spinner that does not
 * get the turn in time parks too. The hold time is a moving average of the outermost holds.
 *
 * <p><b>Fairness.</b> None, as with a non-fair {@link ReentrantLock} (which this is built on):
 * a spinner or a newly arriving thread may take the turn ahead of a parked one. Updates make
 * no promise of order between threads.
 *
 * <p>Thread-safe.
 */
public final class TurnLock {
  /** The longest a waiter spins before it parks: a few hand-overs of a typical stretch. */
  public static final long MAX_SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
  /** The hold time assumed before any was measured. */
  private static final long INITIAL_HOLD_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

  private final ReentrantLock lock = new ReentrantLock();
  /** Whether a waiter is spinning; at most one does. */
  private final AtomicBoolean spinning = new AtomicBoolean();
  /** Moving average of the outermost holds' durations, in nanoseconds. */
  private volatile long averageHoldNanos = INITIAL_HOLD_NANOS;
  /** When the current outermost hold began; written and read by the holder only. */
  private long heldSince;

  /** A free lock. */
  public TurnLock() {}

  /**
   * Takes the turn, waiting as long as it takes (not interruptibly): at once if it is free
   * or held by this thread, after a short spin if this thread becomes the spinner, else
   * parked. Give it up with {@link #unlock}.
   */
  public void lock() {
    if (!lock.tryLock() && !spinFor(System.nanoTime())) {
      lock.lock();
    }
    held();
  }

  /**
   * Takes the turn if it is free or held by this thread, without waiting.
   *
   * @return whether this thread holds it (then {@link #unlock} once)
   */
  public boolean tryLock() {
    if (!lock.tryLock()) {
      return false;
    }
    held();
    return true;
  }

  /**
   * Takes the turn, waiting at most {@code timeoutNanos}: at once if it is free or held by
   * this thread, after a short spin if this thread becomes the spinner, else parked.
   *
   * @param timeoutNanos the longest wait
   * @return whether this thread holds the turn (then {@link #unlock} once)
   * @throws InterruptedException if interrupted while parked
   */
  public boolean tryLock(long timeoutNanos) throws InterruptedException {
    long start = System.nanoTime();
    if (!lock.tryLock() && !spinFor(start) && !lock.tryLock(
        Math.max(0, timeoutNanos - (System.nanoTime() - start)), TimeUnit.NANOSECONDS)) {
      return false;
    }
    held();
    return true;
  }

  /** Notes when the outermost hold began. */
  private void held() {
    if (lock.getHoldCount() == 1) {
      heldSince = System.nanoTime();
    }
  }

  /** Spins for the turn if no other waiter spins; whether it was taken. */
  private boolean spinFor(long start) {
    if (!spinning.compareAndSet(false, true)) {
      return false;
    }
    try {
      long limit = Math.min(MAX_SPIN_NANOS, 2 * averageHoldNanos);
      do {
        Thread.onSpinWait();
        if (!lock.isLocked() && lock.tryLock()) {
          return true;
        }
      } while (System.nanoTime() - start < limit);
      return false;
    } finally {
      spinning.set(false);
    }
  }

  /**
   * Gives up one hold of the turn; the outermost one is counted into the average.
   *
   * @throws IllegalMonitorStateException if this thread does not hold it
   */
  public void unlock() {
    if (lock.getHoldCount() == 1) {
      long held = System.nanoTime() - heldSince;
      // An average over about eight holds; a long hold (a slow change function) moves it up,
      // and the spin stays bounded by MAX_SPIN_NANOS whatever it says.
      long average = averageHoldNanos;
      averageHoldNanos = average + (Math.max(0, held) - average) / 8;
    }
    lock.unlock();
  }

  /**
   * Whether this thread holds the turn.
   *
   * @return true if it does
   */
  public boolean isHeldByCurrentThread() {
    return lock.isHeldByCurrentThread();
  }
}
