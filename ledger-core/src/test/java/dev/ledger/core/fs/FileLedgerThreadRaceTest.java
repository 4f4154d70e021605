package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.core.Change;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Promise 3 and 5 under threads: many threads of one process read-modify-write one ledger on
 * disk; every update lands exactly once, each revision has exactly one winner, and the
 * journal stays gapless, also as a fresh store reads it back. Updates through one store take
 * turns (the update turn), so they never lose a race to each other.
 */
class FileLedgerThreadRaceTest {
  private static final int THREADS = 8;
  private static final int UPDATES_EACH = 200;

  @TempDir
  Path dir;

  @Test
  void eightThreadsIncrementingOneLedgerLandEveryUpdateExactlyOnce() throws Exception {
    // Small segments and checkpoints so that rolls and checkpoints race with the updates too.
    LedgerOptions options = LedgerOptions.defaults()
        .withUpdateRetry(10_000, Duration.ofMillis(1))
        .withCheckpointInterval(64)
        .withSegmentBytes(64 * 1024);
    int total = THREADS * UPDATES_EACH;
    try (FileLedgerStore store = FileLedgerStore.open(dir.resolve("store"), options)) {
      Ledger<Counter> ledger = store.ledger("race", Counter.class);
      ledger.commit(Ledger.NO_REVISION, new Counter(0));

      ExecutorService pool = Executors.newFixedThreadPool(THREADS);
      try {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
          String writer = "thread-" + t;
          workers.add(pool.submit(() -> {
            start.await();
            for (int step = 0; step < UPDATES_EACH; step++) {
              var event = Counter.incremented(writer, step);
              ledger.update(c -> Change.to(c.increment(), event));
            }
            return null;
          }));
        }
        start.countDown();
        for (Future<?> worker : workers) {
          worker.get(90, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
      Counter.assertLandedExactlyOnce(ledger, total);
    }
    try (FileLedgerStore reopened = FileLedgerStore.open(dir.resolve("store"), options)) {
      Counter.assertLandedExactlyOnce(reopened.ledger("race", Counter.class), total);
    }
  }

  @Test
  void racingUpdatesOfOneStoreTakeTurnsSoNoneConflictsAndForcesAreShared() throws Exception {
    // One attempt only: an update that lost a race to another thread of this store would
    // fail with RevisionConflictException instead of retrying.
    MeterRegistry registry = new SimpleMeterRegistry();
    LedgerOptions options = LedgerOptions.defaults()
        .withUpdateRetry(1, Duration.ZERO)
        .withMeterRegistry(registry);
    int updatesEach = 50;
    int total = THREADS * updatesEach;
    AtomicInteger changeCalls = new AtomicInteger();
    try (FileLedgerStore store = FileLedgerStore.open(dir.resolve("store"), options)) {
      Ledger<Counter> ledger = store.ledger("turns", Counter.class);
      ledger.commit(Ledger.NO_REVISION, new Counter(0));
      ExecutorService pool = Executors.newFixedThreadPool(THREADS);
      try {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
          String writer = "thread-" + t;
          workers.add(pool.submit(() -> {
            start.await();
            for (int step = 0; step < updatesEach; step++) {
              var event = Counter.incremented(writer, step);
              ledger.update(c -> {
                changeCalls.incrementAndGet();
                return Change.to(c.increment(), event);
              });
            }
            return null;
          }));
        }
        start.countDown();
        for (Future<?> worker : workers) {
          worker.get(90, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
      Counter.assertLandedExactlyOnce(ledger, total);
      assertThat(changeCalls.get()).as("change function runs, one per update").isEqualTo(total);
      // Every acknowledged commit needed a force after its record was written, and one
      // force may cover several: at least one, at most one per commit (the first included).
      double forces = registry.get("ledger.journal.forces").counter().count();
      assertThat(forces).isBetween(1.0, total + 1.0);
    }
  }
}
