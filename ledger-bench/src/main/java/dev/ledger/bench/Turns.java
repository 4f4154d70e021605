package dev.ledger.bench;

import java.util.List;

/**
 * Runs contenders in turns of short slices, round-robin, so that each sees the same
 * background load (the disk and CPUs are shared with other work): a slow spell of the
 * machine lands on all of them instead of on whichever ran during it.
 */
final class Turns {
  /** One contender: works for about {@code millis} and returns the operations done. */
  interface Slice {
    long run(long millis) throws Exception;
  }

  static final int SLICES_PER_ROUND = 10;

  private Turns() {}

  /** Operations per second of each contender over {@code totalMillis} each, in turns. */
  static double[] rates(List<Slice> contenders, long totalMillis) throws Exception {
    int slices = Math.max(1, (int) Math.min(SLICES_PER_ROUND, totalMillis / 20));
    long sliceMillis = Math.max(1, totalMillis / slices);
    long[] ops = new long[contenders.size()];
    long[] nanos = new long[contenders.size()];
    for (int s = 0; s < slices; s++) {
      for (int i = 0; i < contenders.size(); i++) {
        long t0 = System.nanoTime();
        ops[i] += contenders.get(i).run(sliceMillis);
        nanos[i] += System.nanoTime() - t0;
      }
    }
    double[] rates = new double[ops.length];
    for (int i = 0; i < ops.length; i++) {
      rates[i] = ops[i] * 1e9 / nanos[i];
    }
    return rates;
  }

  /** A commit target as a contender. */
  static Slice of(CommitTarget target) {
    return millis -> CommitTarget.count(target, millis);
  }
}
