package dev.ledger.bench;

import java.util.List;

/**
 * Runs contenders in turns of short slices, round-robin, so that each sees the same
 * background load (the disk and CPUs are shared with other work): a slow spell of the
 * machine lands on all of them instead of on whichever ran during it.
 *
 * <p>The order rotates: each pass of slices starts one contender later than the one before,
 * and each call (a round) starts one later than the call before, so that no contender always
 * runs first, after a pause (a cold cache, an idle disk queue), or always last.
 */
final class Turns {
  /** One contender: works for about {@code millis} and returns the operations done. */
  interface Slice {
    long run(long millis) throws Exception;
  }

  static final int SLICES_PER_ROUND = 10;

  /** Where the next call's first pass starts; advances by one per call. */
  private static int nextStart;

  private Turns() {}

  /** Operations per second of each contender over {@code totalMillis} each, in turns. */
  static double[] rates(List<Slice> contenders, long totalMillis) throws Exception {
    int slices = Math.max(1, (int) Math.min(SLICES_PER_ROUND, totalMillis / 20));
    long sliceMillis = Math.max(1, totalMillis / slices);
    long[] ops = new long[contenders.size()];
    long[] nanos = new long[contenders.size()];
    int n = contenders.size();
    int start = firstOfRound(n);
    for (int s = 0; s < slices; s++) {
      for (int k = 0; k < n; k++) {
        int i = (start + s + k) % n;
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

  /** The contender a round of {@code n} starts with; each call returns the next one. */
  static synchronized int firstOfRound(int n) {
    return Math.floorMod(nextStart++, n);
  }

  /** A commit target as a contender. */
  static Slice of(CommitTarget target) {
    return millis -> CommitTarget.count(target, millis);
  }
}
