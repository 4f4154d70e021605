package dev.ledger.examples;

import com.google.common.hash.Hashing;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Simulated work: a pause of a few milliseconds (optional), then an outcome decided only by
 * the plan's seed, the task and the attempt number, so any worker, thread or process, gets the
 * same result for the same attempt.
 *
 * <p>Failures: every task whose number is 4 modulo 9 fails its first attempt; the plan's
 * {@linkplain Plans#alwaysFailing always-failing} task fails every attempt; any other attempt
 * before the last allowed one fails with probability 1/5, decided by a hash of seed, task and
 * attempt.
 */
public final class SimulatedWork implements TaskWork {
  private final boolean pause;

  /**
   * Creates the work.
   *
   * @param pause whether each attempt sleeps 2 to 7 ms (off in deterministic tests)
   */
  public SimulatedWork(boolean pause) {
    this.pause = pause;
  }

  @Override
  public Outcome perform(PlanState plan, Operation op) {
    long hash = hash(plan.seed(), op.id());
    if (pause) {
      try {
        TimeUnit.MILLISECONDS.sleep(2 + Math.floorMod(hash, 6));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while working on " + op.id(), e);
      }
    }
    String error = failure(plan, op, hash);
    StringBuilder out = new StringBuilder()
        .append("task ").append(op.task()).append(" attempt ").append(op.attempt()).append('\n')
        .append("plan ").append(plan.planId()).append(" seed ").append(plan.seed()).append('\n')
        .append("inputs ").append(String.join(" ", plan.task(op.task()).dependsOn()))
        .append('\n');
    if (error == null) {
      out.append("result ").append(Long.toHexString(hash)).append('\n');
    } else {
      out.append("error ").append(error).append('\n');
    }
    return new Outcome(error == null, out.toString().getBytes(StandardCharsets.UTF_8), error);
  }

  private static String failure(PlanState plan, Operation op, long hash) {
    if (op.task().equals(Plans.alwaysFailing(plan.tasks().size()))) {
      return "simulated permanent failure";
    }
    int number = Plans.number(op.task());
    if (number % 9 == 4 && op.attempt() == 1) {
      return "simulated failure on the first attempt";
    }
    if (op.attempt() < plan.maxAttempts() && Math.floorMod(hash >>> 8, 5) == 0) {
      return "simulated flaky failure";
    }
    return null;
  }

  private static long hash(long seed, String operationId) {
    return Hashing.sha256().hashString(seed + "/" + operationId, StandardCharsets.UTF_8)
        .asLong();
  }
}
