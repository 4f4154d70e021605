package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The update turn's flat combining, with plain attempts: the holder runs the attempts queued
 * behind it in arrival order on its own thread, each caller gets its own outcome (the same
 * instance it threw), a holder gives the turn up after a batch, and the rules of a plain lock
 * hold (one attempt at a time, patience, interrupts, reentrancy).
 */
class UpdateTurnTest {
  private static final Duration LONG = Duration.ofMinutes(1);

  private final UpdateTurn turn = new UpdateTurn(served -> served.forEach(LockSupport::unpark));
  private final List<Thread> started = new ArrayList<>();

  @AfterEach
  void stopThreads() throws InterruptedException {
    for (Thread t : started) {
      t.interrupt();
      t.join(TimeUnit.SECONDS.toMillis(10));
    }
  }

  /** Runs {@code attempt} through the turn on a new thread; the future holds its outcome. */
  private <T> Caller<T> call(String name, Duration patience, Supplier<T> attempt) {
    CompletableFuture<T> outcome = new CompletableFuture<>();
    Thread thread = new Thread(() -> {
      try {
        outcome.complete(turn.run(patience, attempt));
      } catch (Throwable t) {
        outcome.completeExceptionally(t);
      }
    }, name);
    started.add(thread);
    thread.start();
    return new Caller<>(thread, outcome);
  }

  /** Runs {@code body} on a new thread, outside the turn; the future holds its outcome. */
  private <T> Caller<T> spawn(String name, java.util.concurrent.Callable<T> body) {
    CompletableFuture<T> outcome = new CompletableFuture<>();
    Thread thread = new Thread(() -> {
      try {
        outcome.complete(body.call());
      } catch (Throwable t) {
        outcome.completeExceptionally(t);
      }
    }, name);
    started.add(thread);
    thread.start();
    return new Caller<>(thread, outcome);
  }

  private record Caller<T>(Thread thread, CompletableFuture<T> outcome) {
    T get() throws Exception {
      return outcome.get(30, TimeUnit.SECONDS);
    }

    Throwable failure() throws InterruptedException, TimeoutException {
      try {
        outcome.get(30, TimeUnit.SECONDS);
        return null;
      } catch (ExecutionException e) {
        return e.getCause();
      }
    }
  }

  /** A holder whose own attempt blocks until {@link #release}. */
  private final class Holder {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final Caller<String> caller = call("holder", LONG, () -> {
      entered.countDown();
      awaitUninterruptibly(release);
      return "holder";
    });

    Holder() throws InterruptedException {
      assertThat(entered.await(30, TimeUnit.SECONDS)).as("holder started").isTrue();
    }

    void release() {
      release.countDown();
    }
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    boolean interrupted = false;
    while (true) {
      try {
        latch.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** Waits, with a deadline, until {@code n} attempts are queued and not yet taken. */
  private void awaitQueued(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (turn.queued() != n) {
      assertThat(System.nanoTime()).as("%s attempts queued, saw %s", n, turn.queued())
          .isLessThan(deadline);
      Thread.sleep(1);
    }
  }

  @Test
  void queuedAttemptsRunOnTheHoldersThreadInArrivalOrder() throws Exception {
    Holder holder = new Holder();
    ConcurrentLinkedQueue<String> order = new ConcurrentLinkedQueue<>();
    List<Caller<String>> callers = new ArrayList<>();
    List<AtomicReference<Thread>> ranOn = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      String name = "caller-" + i;
      AtomicReference<Thread> on = new AtomicReference<>();
      ranOn.add(on);
      callers.add(call(name, LONG, () -> {
        on.set(Thread.currentThread());
        order.add(name);
        return name;
      }));
      awaitQueued(i + 1);
    }
    holder.release();
    assertThat(holder.caller.get()).isEqualTo("holder");
    for (int i = 0; i < callers.size(); i++) {
      assertThat(callers.get(i).get()).isEqualTo("caller-" + i);
      assertThat(ranOn.get(i).get()).as("caller-%s ran on", i)
          .isSameAs(holder.caller.thread());
    }
    assertThat(order).containsExactly("caller-0", "caller-1", "caller-2", "caller-3",
        "caller-4");
  }

  /** An error of a change function, to tell it from the test's own. */
  private static final class BrokenChange extends Error {
    BrokenChange(String message) {
      super(message);
    }
  }

  @Test
  void whatAnAttemptThrowsReachesItsOwnCallerOnlyUnchanged() throws Exception {
    Holder holder = new Holder();
    IllegalStateException refused = new IllegalStateException("refused by caller-0");
    BrokenChange broken = new BrokenChange("broken in caller-2");
    Caller<String> first = call("caller-0", LONG, () -> {
      throw refused;
    });
    awaitQueued(1);
    Caller<String> second = call("caller-1", LONG, () -> "fine");
    awaitQueued(2);
    Caller<String> third = call("caller-2", LONG, () -> {
      throw broken;
    });
    awaitQueued(3);
    Caller<String> fourth = call("caller-3", LONG, () -> "fine too");
    awaitQueued(4);
    holder.release();
    assertThat(first.failure()).isSameAs(refused);
    assertThat(second.get()).isEqualTo("fine");
    assertThat(third.failure()).isSameAs(broken);
    assertThat(fourth.get()).isEqualTo("fine too");
    assertThat(holder.caller.get()).isEqualTo("holder");
  }

  @Test
  void aHolderGivesTheTurnUpAfterABatchAndTheNextCallerRunsTheRest() throws Exception {
    Holder holder = new Holder();
    int queued = UpdateTurn.BATCH + 6;
    ConcurrentLinkedQueue<Integer> order = new ConcurrentLinkedQueue<>();
    List<Caller<Integer>> callers = new ArrayList<>();
    List<AtomicReference<Thread>> ranOn = new ArrayList<>();
    for (int i = 0; i < queued; i++) {
      int index = i;
      AtomicReference<Thread> on = new AtomicReference<>();
      ranOn.add(on);
      callers.add(call("caller-" + i, LONG, () -> {
        on.set(Thread.currentThread());
        order.add(index);
        return index;
      }));
      awaitQueued(i + 1);
    }
    holder.release();
    for (int i = 0; i < queued; i++) {
      assertThat(callers.get(i).get()).isEqualTo(i);
    }
    assertThat(new ArrayList<>(order)).hasSize(queued).isSorted();
    // The holder's batch: its own attempt and BATCH - 1 of the queue; then it gives the
    // turn up and a caller still queued takes it.
    Thread holderThread = holder.caller.thread();
    for (int i = 0; i < queued; i++) {
      if (i < UpdateTurn.BATCH - 1) {
        assertThat(ranOn.get(i).get()).as("caller-%s ran on", i).isSameAs(holderThread);
      } else {
        assertThat(ranOn.get(i).get()).as("caller-%s ran on", i).isNotSameAs(holderThread);
      }
    }
  }

  @Test
  void aCallerNotTakenWithinItsPatienceRunsWithoutTheTurnOnItsOwnThread() throws Exception {
    Holder holder = new Holder();
    AtomicReference<Thread> ranOn = new AtomicReference<>();
    Caller<String> impatient = call("impatient", Duration.ofMillis(20), () -> {
      ranOn.set(Thread.currentThread());
      return "alone";
    });
    // Returns while the holder still holds the turn.
    assertThat(impatient.get()).isEqualTo("alone");
    assertThat(ranOn.get()).isSameAs(impatient.thread());
    assertThat(holder.caller.outcome()).isNotDone();
    assertThat(turn.queued()).isZero();
    holder.release();
    assertThat(holder.caller.get()).isEqualTo("holder");
  }

  @Test
  void aCallerInterruptedWhileQueuedRunsWithoutTheTurnAndKeepsTheInterrupt() throws Exception {
    Holder holder = new Holder();
    AtomicReference<Thread> ranOn = new AtomicReference<>();
    AtomicReference<Boolean> interruptedInside = new AtomicReference<>();
    Caller<String> caller = call("interrupted", LONG, () -> {
      ranOn.set(Thread.currentThread());
      interruptedInside.set(Thread.currentThread().isInterrupted());
      return "alone";
    });
    awaitQueued(1);
    caller.thread().interrupt();
    assertThat(caller.get()).isEqualTo("alone");
    assertThat(ranOn.get()).isSameAs(caller.thread());
    assertThat(interruptedInside.get()).as("interrupt kept for the attempt").isTrue();
    assertThat(holder.caller.outcome()).isNotDone();
    // A caller queued behind the withdrawn one is still served.
    Caller<String> next = call("next", LONG, () -> "next");
    awaitQueued(1);
    holder.release();
    assertThat(next.get()).isEqualTo("next");
    assertThat(holder.caller.get()).isEqualTo("holder");
  }

  @Test
  void anInterruptedCallerRunsItsAttemptAtOnceOnItsThreadAndKeepsTheInterrupt() throws Exception {
    AtomicReference<Thread> ranOn = new AtomicReference<>();
    Thread.currentThread().interrupt();
    try {
      String got = turn.run(LONG, () -> {
        ranOn.set(Thread.currentThread());
        return "mine";
      });
      assertThat(got).isEqualTo("mine");
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
    assertThat(ranOn.get()).isSameAs(Thread.currentThread());
  }

  @Test
  void anAttemptThatEntersTheTurnAgainOnItsThreadRunsAtOnce() throws Exception {
    assertThat(turn.run(LONG, () -> turn.run(LONG, () -> "inner") + " outer"))
        .isEqualTo("inner outer");
    // Also when the holder runs another caller's attempt that enters again.
    Holder holder = new Holder();
    AtomicReference<Thread> innerOn = new AtomicReference<>();
    Caller<String> nesting = call("nesting", LONG, () -> turn.run(LONG, () -> {
      innerOn.set(Thread.currentThread());
      return "inner";
    }) + " outer");
    awaitQueued(1);
    holder.release();
    assertThat(nesting.get()).isEqualTo("inner outer");
    assertThat(innerOn.get()).isSameAs(holder.caller.thread());
  }

  @Test
  void racingCallersRunOneAttemptAtATimeAndEachGetsItsOwnResult() throws Exception {
    int threads = 8;
    int each = 2_000;
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    int[] counter = new int[1];
    List<Caller<Integer>> callers = new ArrayList<>();
    CountDownLatch start = new CountDownLatch(1);
    for (int t = 0; t < threads; t++) {
      int thread = t;
      callers.add(spawn("racer-" + t, () -> {
        start.await();
        int mismatches = 0;
        for (int i = 0; i < each; i++) {
          int mine = thread * each + i;
          int got = turn.run(LONG, () -> {
            if (inside.incrementAndGet() != 1) {
              overlaps.incrementAndGet();
            }
            counter[0]++; // unguarded: only the turn keeps it exact
            inside.decrementAndGet();
            return mine;
          });
          mismatches += got == mine ? 0 : 1;
        }
        return mismatches;
      }));
    }
    start.countDown();
    for (Caller<Integer> c : callers) {
      assertThat(c.get()).as("results handed to the wrong caller").isZero();
    }
    assertThat(overlaps.get()).as("attempts that overlapped").isZero();
    assertThat(counter[0]).isEqualTo(threads * each);
  }
}
