package dev.ledger.core.fs;

import com.google.common.base.Preconditions;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * The update turn of one ledger in one store ({@link FileLedger#inUpdateTurn}), with flat
 * combining: attempts run one at a time, and the thread that holds the turn runs the
 * attempts queued behind it too, in arrival order, each on its own, before it gives the turn
 * up.
 *
 * <p><b>Why.</b> The updates of one ledger are a chain: each attempt loads the state the
 * previous one wrote. With a lock handed from thread to thread, every link of the chain waits
 * for a thread to be woken, which on a small machine costs as much as the attempt itself.
 * The holder instead runs the next attempts at once, and one force covers the whole batch
 * (group commit, {@link ForceGroup}); each of its callers is woken once, and finds its own
 * commit durable.
 *
 * <p><b>Protocol.</b> A caller queues its attempt, then either takes the turn (when nobody
 * holds it) and runs queued attempts, its own among them, or parks until its attempt is done
 * or the turn is free. The holder takes each attempt from the head of the queue (arrival
 * order), runs it and keeps what it returned or threw as that attempt's outcome. After
 * {@link #BATCH} attempts, or when the queue is empty, it gives the turn up and wakes the
 * first caller still queued, who takes the turn next and writes the next batch while this
 * one is forced; then it waits for the force of what its batch wrote (the hook given to the
 * constructor, {@link BatchWritten}), and the batch's callers are woken once it is durable,
 * by the thread that completed the force. A caller's outcome is returned or thrown on its
 * own thread, unchanged (the same instance); the caller still waits for its own commit to be
 * durable ({@link dev.ledger.core.spi.PendingCommit#awaitDurable}), which it then finds done,
 * or finds failed if the force failed.
 *
 * <p><b>Rules kept from a plain lock.</b> A caller whose attempt was not taken within
 * {@code patience} withdraws it and runs it on its own thread without the turn (optimistic:
 * a revision conflict may refuse it); so does a caller interrupted while queued, or already
 * interrupted when it comes (the interrupt is kept for it). An attempt taken by the holder
 * cannot be withdrawn: its caller waits for it, since its change is running. The turn is
 * reentrant: an attempt that calls {@link #run} on the holder's thread (a change function
 * updating the ledger) runs at once, in the turn. An interrupted holder runs nobody else's
 * attempt (an interrupt would fail their writes): it gives the turn up first.
 *
 * <p>Thread-safe; one instance per ledger per store.
 */
final class UpdateTurn {
  /** Attempts one holder runs in one turn before it gives the turn up. */
  static final int BATCH = 64;

  /** Where a queued attempt is. */
  private enum Stage {
    /** Waiting in the queue; its caller may still withdraw it. */
    QUEUED,
    /** Taken by the holder, which runs it now. */
    RUNNING,
    /** Run; its outcome is set. */
    DONE,
    /** Withdrawn by its caller, who runs it without the turn. */
    WITHDRAWN
  }

  /** One caller's attempt, its stage and its outcome. */
  private static final class Request {
    private static final VarHandle STAGE;

    static {
      try {
        STAGE = MethodHandles.lookup().findVarHandle(Request.class, "stage", Stage.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    final Supplier<?> attempt;
    final Thread caller;
    @SuppressWarnings("unused") // through STAGE
    private volatile Stage stage = Stage.QUEUED;
    /** Set before the stage becomes DONE; read after it is seen DONE. */
    private Object result;
    private Throwable failure;

    Request(Supplier<?> attempt, Thread caller) {
      this.attempt = attempt;
      this.caller = caller;
    }

    Stage stage() {
      return stage;
    }

    boolean move(Stage from, Stage to) {
      return STAGE.compareAndSet(this, from, to);
    }

    /** Runs the attempt and keeps its outcome; never throws. */
    void runAttempt() {
      try {
        result = attempt.get();
      } catch (Throwable t) {
        failure = t;
      }
      stage = Stage.DONE;
    }
  }

  private static final VarHandle HOLDER;

  static {
    try {
      HOLDER = MethodHandles.lookup().findVarHandle(UpdateTurn.class, "holder", Thread.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final ConcurrentLinkedQueue<Request> queue = new ConcurrentLinkedQueue<>();
  /** The thread holding the turn, or null. */
  @SuppressWarnings("unused") // through HOLDER
  private volatile Thread holder;

  /**
   * Runs {@code attempt} in the turn, on this thread or on the holder's, and returns what it
   * returned or throws what it threw.
   *
   * @param patience the longest wait for the attempt to be taken before it runs without the
   *     turn on this thread
   * @param attempt the attempt
   * @param <T> what it returns
   * @return what {@code attempt} returned
   */
  <T> T run(Duration patience, Supplier<T> attempt) {
    Preconditions.checkNotNull(patience, "patience");
    Preconditions.checkNotNull(attempt, "attempt");
    Thread me = Thread.currentThread();
    if (holder == me || me.isInterrupted()) {
      // Reentrant: a nested attempt of the holder runs in its turn. Interrupted: as a lock
      // would, without the turn (the write will report the interrupt).
      return attempt.get();
    }
    Request request = new Request(attempt, me);
    queue.add(request);
    long deadline = System.nanoTime() + patience.toNanos();
    boolean interrupted = false;
    try {
      while (true) {
        Stage stage = request.stage();
        if (stage == Stage.DONE) {
          return outcome(request);
        }
        if (Thread.interrupted()) {
          interrupted = true;
        }
        if (stage == Stage.QUEUED && !interrupted && holder == null
            && HOLDER.compareAndSet(this, null, me)) {
          combine(me);
          continue;
        }
        if (stage == Stage.RUNNING) {
          LockSupport.park(this);
          continue;
        }
        long left = deadline - System.nanoTime();
        if ((interrupted || left <= 0) && request.move(Stage.QUEUED, Stage.WITHDRAWN)) {
          queue.remove(request);
          // It may have been the next to take the turn: pass that on.
          wakeNext();
          if (interrupted) {
            Thread.currentThread().interrupt();
            interrupted = false;
          }
          return attempt.get();
        }
        if (left > 0) {
          LockSupport.parkNanos(this, left);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** What a holder does with a batch it wrote, once it gave the turn up. */
  @FunctionalInterface
  interface BatchWritten {
    /**
     * Waits until what the batch wrote is durable (one force for the batch) or its force
     * failed, and sees to it that each of the {@code served} callers, parked until then, is
     * unparked once at that point (by whichever thread completes the force), so that it
     * finds its own commit durable. It must not throw.
     */
    void awaitDurable(List<Thread> served);
  }

  /** Run by a holder after it gave the turn up, with the callers it ran attempts of. */
  private final BatchWritten batchWritten;

  /**
   * A turn whose holder, after a batch, hands the batch's callers to {@code batchWritten},
   * which waits for the force of what the batch wrote and wakes them once it is durable.
   */
  UpdateTurn(BatchWritten batchWritten) {
    this.batchWritten = Preconditions.checkNotNull(batchWritten, "batchWritten");
  }

  /**
   * Runs up to {@link #BATCH} queued attempts in the turn, then gives it up, waits for the
   * batch's force, and wakes the batch's callers.
   */
  private void combine(Thread me) {
    List<Thread> served = new ArrayList<>();
    try {
      for (int ran = 0; ran < BATCH && !me.isInterrupted(); ) {
        Request next = queue.poll();
        if (next == null) {
          break;
        }
        if (!next.move(Stage.QUEUED, Stage.RUNNING)) {
          continue; // withdrawn
        }
        next.runAttempt();
        ran++;
        if (next.caller != me) {
          served.add(next.caller);
        }
      }
    } finally {
      holder = null;
      // The next batch is written while this one is forced.
      wakeNext();
      if (!served.isEmpty()) {
        try {
          batchWritten.awaitDurable(served);
        } catch (RuntimeException | Error e) {
          // It must not throw; if it did, nobody else would wake them.
          for (Thread caller : served) {
            LockSupport.unpark(caller);
          }
          throw e;
        }
      }
    }
  }

  /** Wakes the first caller still queued, if nobody holds the turn, to take it. */
  private void wakeNext() {
    if (holder != null) {
      return; // the holder runs what is queued, and wakes the next when it is done
    }
    for (Request r : queue) {
      if (r.stage() == Stage.QUEUED) {
        LockSupport.unpark(r.caller);
        return;
      }
    }
  }

  /** What a done request's attempt returned, or its failure, thrown unchanged. */
  @SuppressWarnings("unchecked")
  private static <T> T outcome(Request request) {
    if (request.failure != null) {
      throw UpdateTurn.<RuntimeException>sneaky(request.failure);
    }
    return (T) request.result;
  }

  /** Throws {@code t} as it is, checked or not (an attempt may throw anything). */
  @SuppressWarnings("unchecked")
  private static <E extends Throwable> E sneaky(Throwable t) throws E {
    throw (E) t;
  }

  /** Attempts queued and not yet taken; for tests. */
  int queued() {
    int n = 0;
    for (Request r : queue) {
      if (r.stage() == Stage.QUEUED) {
        n++;
      }
    }
    return n;
  }
}
