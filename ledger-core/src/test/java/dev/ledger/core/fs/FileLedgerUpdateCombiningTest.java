package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.core.Change;
import dev.ledger.core.Durability;
import dev.ledger.core.Event;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.Versioned;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Racing {@code update}s of one ledger in one store with flat combining ({@link UpdateTurn}):
 * the update holding the turn runs the change functions queued behind it, and each update
 * keeps its own outcome: its revision, the state its own function produced, its own
 * exception, its {@code Change.none()}; the journal holds every commit once, in order; and
 * racing updates share forces.
 */
class FileLedgerUpdateCombiningTest {
  private static final int THREADS = 8;
  private static final int UPDATES_EACH = 150;

  @TempDir
  Path dir;

  /** What a change function throws on purpose, to tell it from anything else. */
  static final class Refusal extends RuntimeException {
    Refusal(String message) {
      super(message);
    }
  }

  /** Step {@code step} of every writer throws (1 in 10) or changes nothing (1 in 10). */
  private static boolean refuses(int step) {
    return step % 10 == 3;
  }

  private static boolean changesNothing(int step) {
    return step % 10 == 6;
  }

  @ParameterizedTest
  @EnumSource(Durability.class)
  void racingUpdatesEachKeepTheirOwnOutcomeAndLandOnceInOrder(Durability durability)
      throws Exception {
    MeterRegistry registry = new SimpleMeterRegistry();
    // One attempt: updates of one store never conflict with each other, combined or not.
    LedgerOptions options = LedgerOptions.defaults()
        .withDurability(durability)
        .withUpdateRetry(1, Duration.ZERO)
        .withCheckpointInterval(64)
        .withSegmentBytes(64 * 1024)
        .withMeterRegistry(registry);
    Map<Long, String> acknowledged = new ConcurrentHashMap<>();
    AtomicInteger elsewhere = new AtomicInteger();
    int committing = 0;
    for (int step = 0; step < UPDATES_EACH; step++) {
      committing += refuses(step) || changesNothing(step) ? 0 : 1;
    }
    int total = THREADS * committing;
    try (FileLedgerStore store = FileLedgerStore.open(dir.resolve("store"), options)) {
      Ledger<Counter> ledger = store.ledger("race", Counter.class);
      ledger.commit(Ledger.NO_REVISION, new Counter(0));
      double forcesBefore = registry.get("ledger.journal.forces").counter().count();
      ExecutorService pool = Executors.newFixedThreadPool(THREADS);
      try {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
          String writer = "thread-" + t;
          workers.add(pool.submit(() -> {
            start.await();
            Thread caller = Thread.currentThread();
            long lastRevision = 0;
            for (int step = 0; step < UPDATES_EACH; step++) {
              int s = step;
              AtomicReference<Counter> produced = new AtomicReference<>();
              Refusal refusal = new Refusal(writer + "/" + step + " refused");
              Versioned<Counter> after;
              try {
                after = ledger.update(c -> {
                  if (Thread.currentThread() != caller) {
                    elsewhere.incrementAndGet();
                  }
                  if (refuses(s)) {
                    throw refusal;
                  }
                  if (changesNothing(s)) {
                    produced.set(c);
                    return Change.none();
                  }
                  Counter next = c.increment();
                  produced.set(next);
                  return Change.to(next, Counter.incremented(writer, s));
                });
              } catch (Refusal e) {
                assertThat(e).as("%s/%s", writer, s).isSameAs(refusal);
                assertThat(refuses(s)).as("%s/%s refused", writer, s).isTrue();
                continue;
              }
              assertThat(refuses(s)).as("%s/%s returned", writer, s).isFalse();
              assertThat(after.state()).as("%s/%s state", writer, s).isSameAs(produced.get());
              if (changesNothing(s)) {
                assertThat(after.revision()).isGreaterThanOrEqualTo(lastRevision);
              } else {
                assertThat(after.revision()).as("%s/%s revision", writer, s)
                    .isGreaterThan(lastRevision);
                assertThat(after.state().count()).isEqualTo(after.revision() - 1);
                String earlier = acknowledged.putIfAbsent(after.revision(), writer + "/" + s);
                assertThat(earlier).as("revision %s acknowledged twice", after.revision())
                    .isNull();
              }
              lastRevision = after.revision();
            }
            return null;
          }));
        }
        start.countDown();
        for (Future<?> worker : workers) {
          worker.get(120, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
      Counter.assertLandedExactlyOnce(ledger, total);
      assertThat(acknowledged).hasSize(total);
      List<Event> events = Counter.journal(ledger);
      for (Event event : events) {
        assertThat(acknowledged.get(event.revision())).as("revision %s", event.revision())
            .isEqualTo(Counter.step(event));
      }
      assertThat(elsewhere.get()).as("change functions run on another caller's thread")
          .isPositive();
      double forces = registry.get("ledger.journal.forces").counter().count() - forcesBefore;
      if (durability == Durability.SYNC) {
        assertThat(forces).as("forces for %s commits", total).isBetween(1.0, total - 1.0);
      } else {
        assertThat(forces).isZero();
      }
    }
    try (FileLedgerStore reopened = FileLedgerStore.open(dir.resolve("store"), options)) {
      Counter.assertLandedExactlyOnce(reopened.ledger("race", Counter.class), total);
    }
  }

  /** Waits, with a deadline, until {@code thread} is parked in an update turn. */
  private static void awaitQueued(Thread thread) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!(LockSupport.getBlocker(thread) instanceof UpdateTurn)) {
      assertThat(System.nanoTime()).as("%s queued", thread.getName()).isLessThan(deadline);
      Thread.sleep(1);
    }
  }

  /** Runs {@code body} on a new thread; the future holds its outcome. */
  private static <T> java.util.concurrent.CompletableFuture<T> spawn(String name,
      java.util.concurrent.Callable<T> body, List<Thread> threads) {
    java.util.concurrent.CompletableFuture<T> outcome =
        new java.util.concurrent.CompletableFuture<>();
    Thread thread = new Thread(() -> {
      try {
        outcome.complete(body.call());
      } catch (Throwable t) {
        outcome.completeExceptionally(t);
      }
    }, name);
    threads.add(thread);
    thread.start();
    return outcome;
  }

  @Test
  void updatesQueuedBehindTheTurnRunInOneBatchOnTheHoldersThread() throws Exception {
    LedgerOptions options = LedgerOptions.defaults().withUpdateRetry(3, Duration.ZERO);
    List<Thread> threads = new ArrayList<>();
    try (FileLedgerStore store = FileLedgerStore.open(dir.resolve("store"), options)) {
      Ledger<Counter> ledger = store.ledger("batch", Counter.class);
      ledger.commit(Ledger.NO_REVISION, new Counter(0));
      CountDownLatch entered = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      Map<String, Thread> ranOn = new ConcurrentHashMap<>();
      var holder = spawn("holder", () -> ledger.update(c -> {
        ranOn.put("holder", Thread.currentThread());
        entered.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
        return Change.to(c.increment(), Counter.incremented("holder", 0));
      }), threads);
      assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();

      var first = spawn("first", () -> ledger.update(c -> {
        ranOn.put("first", Thread.currentThread());
        return Change.to(c.increment(), Counter.incremented("first", 0));
      }), threads);
      awaitQueued(threads.get(1));
      Refusal refusal = new Refusal("refused in a batch");
      var refused = spawn("refused", () -> ledger.update(c -> {
        ranOn.put("refused", Thread.currentThread());
        throw refusal;
      }), threads);
      awaitQueued(threads.get(2));
      var none = spawn("none", () -> ledger.update(c -> {
        ranOn.put("none", Thread.currentThread());
        return Change.<Counter>none();
      }), threads);
      awaitQueued(threads.get(3));
      // Its first run updates the ledger itself, on the thread it runs on: that inner
      // update runs at once in the turn, and the outer attempt conflicts and runs again.
      AtomicBoolean nestedDone = new AtomicBoolean();
      AtomicInteger nestingRuns = new AtomicInteger();
      var nesting = spawn("nesting", () -> ledger.update(c -> {
        nestingRuns.incrementAndGet();
        ranOn.put("nesting", Thread.currentThread());
        if (nestedDone.compareAndSet(false, true)) {
          ledger.update(inner -> Change.to(inner.increment(),
              Counter.incremented("nested", 0)));
        }
        return Change.to(c.increment(), Counter.incremented("nesting", 0));
      }), threads);
      awaitQueued(threads.get(4));
      release.countDown();

      Thread holderThread = threads.get(0);
      assertThat(holder.get(30, TimeUnit.SECONDS).revision()).isEqualTo(2);
      Versioned<Counter> afterFirst = first.get(30, TimeUnit.SECONDS);
      assertThat(afterFirst.revision()).isEqualTo(3);
      assertThat(afterFirst.state().count()).isEqualTo(2);
      Throwable thrown = refused.handle((v, e) -> e).get(30, TimeUnit.SECONDS);
      assertThat(thrown).isSameAs(refusal);
      Versioned<Counter> unchanged = none.get(30, TimeUnit.SECONDS);
      assertThat(unchanged.revision()).isEqualTo(3);
      assertThat(unchanged.state().count()).isEqualTo(2);
      Versioned<Counter> afterNesting = nesting.get(30, TimeUnit.SECONDS);
      assertThat(nestingRuns.get()).isEqualTo(2);
      assertThat(afterNesting.revision()).isEqualTo(5);
      assertThat(afterNesting.state().count()).isEqualTo(4);
      for (String name : List.of("first", "refused", "none")) {
        assertThat(ranOn.get(name)).as("%s ran on", name).isSameAs(holderThread);
      }
      assertThat(Counter.journal(ledger)).extracting(Counter::step)
          .containsExactly("holder/0", "first/0", "nested/0", "nesting/0");
    } finally {
      for (Thread t : threads) {
        t.join(TimeUnit.SECONDS.toMillis(30));
      }
    }
  }
}
