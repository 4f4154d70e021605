package dev.ledger.examples.rollouts;

import com.google.common.hash.Hashing;
import dev.ledger.examples.rollouts.RolloutDocuments.Attempt;
import dev.ledger.examples.rollouts.RolloutDocuments.AttemptStatus;
import dev.ledger.examples.rollouts.RolloutDocuments.Claim;
import dev.ledger.examples.rollouts.RolloutDocuments.SpanDraft;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * A worker of the rollout lifecycle, in a thread or in a process of its own: it dequeues a
 * rollout (claiming it with a new attempt), reports the attempt's spans in small batches, and
 * ends the attempt as succeeded or failed; a failed attempt with retries left puts its rollout
 * back in the queue, for any worker. Each of those steps is one transaction of the
 * {@link RolloutStore}. A worker that finds the queue empty polls again (a rollout may come
 * back for a retry); it stops when the queue is empty and every rollout has ended.
 *
 * <p>Which attempts fail is decided by a hash of the seed, the rollout and the attempt's
 * sequence id, so a run's outcomes do not depend on which worker got what.
 */
public final class RolloutWorker {
  private static final long MAX_IDLE_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  private final String workerId;
  private final RolloutStore store;
  private final long seed;
  private final Consumer<String> log;
  private final int hangInAttempt;
  private int claims;

  /**
   * A worker.
   *
   * @param workerId its id, as the workers collection records it
   * @param store the store of the partition it works on
   * @param seed the seed of the outcomes
   * @param log told one line per claim ({@code claimed <rollout> <attempt> <sequence id>}),
   *     and {@code hangs <rollout> <attempt>} before a hang
   * @param hangInAttempt 0; or n, to hang for good in the n-th attempt this worker claims,
   *     after its first spans (it stands for a worker that dies or freezes mid-attempt)
   */
  public RolloutWorker(String workerId, RolloutStore store, long seed, Consumer<String> log,
      int hangInAttempt) {
    this.workerId = workerId;
    this.store = store;
    this.seed = seed;
    this.log = log;
    this.hangInAttempt = hangInAttempt;
  }

  /**
   * Whether attempt {@code sequenceId} of a rollout fails: about one in three.
   *
   * @param seed the run's seed
   * @param rolloutId the rollout
   * @param sequenceId the attempt's sequence id
   * @return true if it fails
   */
  public static boolean fails(long seed, String rolloutId, int sequenceId) {
    int h = Hashing.sha256().hashString(seed + "/" + rolloutId + "/" + sequenceId,
        StandardCharsets.UTF_8).asInt();
    return Math.floorMod(h, 3) == 0;
  }

  /**
   * How many spans attempt {@code sequenceId} of a rollout reports: 2 to 5.
   *
   * @param rolloutId the rollout
   * @param sequenceId the attempt's sequence id
   * @return the count
   */
  static int spansOf(String rolloutId, int sequenceId) {
    return 2 + Math.floorMod((rolloutId + "/" + sequenceId).hashCode(), 4);
  }

  /**
   * Works until the queue is empty and every rollout has ended. An empty queue while other
   * workers still run attempts (which may be retried) is polled again after a short pause
   * that doubles up to 20 ms.
   *
   * @return how many attempts this worker ran
   */
  public int runUntilAllEnded() {
    long pause = TimeUnit.MICROSECONDS.toNanos(500);
    while (true) {
      Optional<Claim> claim = store.dequeue(workerId);
      if (claim.isPresent()) {
        run(claim.get().attempt());
        pause = TimeUnit.MICROSECONDS.toNanos(500);
        continue;
      }
      if (store.allEnded()) {
        return claims;
      }
      LockSupport.parkNanos(pause);
      pause = Math.min(pause * 2, MAX_IDLE_PAUSE_NANOS);
    }
  }

  private void hang(Attempt attempt) {
    log.accept("hangs " + attempt.rolloutId() + " " + attempt.attemptId());
    try {
      new CountDownLatch(1).await(); // until the process is killed
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    throw new IllegalStateException(workerId + " interrupted while hanging in "
        + attempt.attemptId());
  }

  private void run(Attempt attempt) {
    claims++;
    log.accept("claimed " + attempt.rolloutId() + " " + attempt.attemptId() + " "
        + attempt.sequenceId());
    int spans = spansOf(attempt.rolloutId(), attempt.sequenceId());
    List<SpanDraft> batch = new ArrayList<>();
    for (int i = 1; i <= spans; i++) {
      batch.add(new SpanDraft("sp-" + i, "step " + i, Map.of("worker", workerId)));
      if (batch.size() == 2 || i == spans) {
        store.addSpans(attempt.rolloutId(), attempt.attemptId(), batch);
        batch = new ArrayList<>();
        if (claims == hangInAttempt) {
          hang(attempt);
        }
      }
    }
    store.updateAttempt(attempt.rolloutId(), attempt.attemptId(),
        fails(seed, attempt.rolloutId(), attempt.sequenceId()) ? AttemptStatus.FAILED
            : AttemptStatus.SUCCEEDED);
  }
}
