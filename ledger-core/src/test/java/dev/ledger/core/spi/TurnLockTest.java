package dev.ledger.core.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The turn lock: one holder at a time, reentrant, bounded waits, hand-over by spinning. */
class TurnLockTest {
  private static final long LONG = TimeUnit.SECONDS.toNanos(60);

  @Test
  void oneHolderAtATimeUnderContention() throws Exception {
    TurnLock turn = new TurnLock();
    int threads = 8;
    int rounds = 20_000;
    long[] counter = {0}; // not atomic: only the turn keeps the increments whole
    AtomicInteger inside = new AtomicInteger();
    AtomicBoolean overlapped = new AtomicBoolean();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        boolean timed = t % 2 == 0; // half wait with a deadline, half without
        done.add(pool.submit(() -> {
          for (int i = 0; i < rounds; i++) {
            if (timed) {
              assertThat(turn.tryLock(LONG)).isTrue();
            } else {
              turn.lock();
            }
            try {
              if (inside.incrementAndGet() != 1) {
                overlapped.set(true);
              }
              counter[0]++;
              inside.decrementAndGet();
            } finally {
              turn.unlock();
            }
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(overlapped).isFalse();
    assertThat(counter[0]).isEqualTo((long) threads * rounds);
  }

  @Test
  void reentrantOnItsThreadAndFreeAfterTheLastUnlock() throws Exception {
    TurnLock turn = new TurnLock();
    assertThat(turn.tryLock(0)).isTrue();
    assertThat(turn.tryLock(0)).isTrue();
    turn.unlock();
    assertThat(turn.isHeldByCurrentThread()).isTrue();
    assertThat(otherThreadTakes(turn, 0)).isFalse();
    turn.unlock();
    assertThat(turn.isHeldByCurrentThread()).isFalse();
    assertThat(otherThreadTakes(turn, 0)).isTrue();
    turn.lock();
    assertThat(turn.tryLock()).isTrue();
    turn.unlock();
    turn.unlock();
    assertThat(turn.isHeldByCurrentThread()).isFalse();
  }

  @Test
  void aWaitRunsOutAtItsTimeoutPastTheSpin() throws Exception {
    TurnLock turn = new TurnLock();
    assertThat(turn.tryLock(0)).isTrue();
    try {
      long timeout = TimeUnit.MILLISECONDS.toNanos(50);
      long start = System.nanoTime();
      assertThat(otherThreadTakes(turn, timeout)).isFalse();
      assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(timeout);
    } finally {
      turn.unlock();
    }
  }

  @Test
  void aParkedWaiterGetsTheTurnWhenTheHolderIsSlowerThanTheSpin() throws Exception {
    TurnLock turn = new TurnLock();
    assertThat(turn.tryLock(0)).isTrue();
    CountDownLatch waiting = new CountDownLatch(1);
    AtomicBoolean took = new AtomicBoolean();
    Thread waiter = new Thread(() -> {
      waiting.countDown();
      try {
        took.set(turn.tryLock(LONG));
        turn.unlock();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    waiter.start();
    waiting.await();
    // Held far longer than any spin: the waiter has parked by the time it is let go.
    Thread.sleep(TimeUnit.NANOSECONDS.toMillis(TurnLock.MAX_SPIN_NANOS) * 10 + 20);
    turn.unlock();
    waiter.join(TimeUnit.SECONDS.toMillis(60));
    assertThat(took).isTrue();
  }

  @Test
  void anInterruptedWaiterStopsWaiting() throws Exception {
    TurnLock turn = new TurnLock();
    assertThat(turn.tryLock(0)).isTrue();
    try {
      AtomicBoolean refused = new AtomicBoolean();
      Thread other = new Thread(() -> {
        Thread.currentThread().interrupt();
        try {
          turn.tryLock(LONG);
        } catch (InterruptedException e) {
          refused.set(true);
        }
      });
      other.start();
      other.join(TimeUnit.SECONDS.toMillis(60));
      assertThat(other.isAlive()).isFalse();
      assertThat(refused).isTrue();
    } finally {
      turn.unlock();
    }
  }

  private static boolean otherThreadTakes(TurnLock turn, long timeoutNanos)
      throws InterruptedException {
    AtomicBoolean took = new AtomicBoolean();
    Thread other = new Thread(() -> {
      try {
        if (turn.tryLock(timeoutNanos)) {
          took.set(true);
          turn.unlock();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    other.start();
    other.join(TimeUnit.SECONDS.toMillis(60));
    return took.get();
  }
}
