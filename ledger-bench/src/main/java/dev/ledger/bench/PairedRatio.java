package dev.ledger.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * A paired comparison of two commit targets, for a difference too small to see in the ratio
 * of two medians taken from separate rounds (a metric's cost against a 5% budget). Each round
 * runs the base, the candidate, the candidate and the base again for one slice each (the
 * order flipped every other round), and yields the candidate's rate over the base's within
 * that round, so that a slow spell of the machine lands on both sides of the ratio it
 * affects, and a steady drift cancels. The result is the median of the per-round ratios and
 * their spread; two warm-up rounds are not counted.
 */
final class PairedRatio {
  private static final int WARM_UP_ROUNDS = 2;

  private PairedRatio() {}

  /** The median per-round ratio, its 10th and 90th percentiles, over {@code rounds}. */
  record Result(double median, double p10, double p90, int rounds) {
    String detail() {
      return String.format(Locale.ROOT, "%.3f: median of %d paired rounds (ABBA); 10th-90th "
          + "percentile %.3f-%.3f", median, rounds, p10, p90);
    }
  }

  /** Runs {@code rounds} paired rounds of four slices of {@code sliceMillis}. */
  static Result measure(CommitTarget base, CommitTarget candidate, int rounds, long sliceMillis)
      throws Exception {
    List<Double> ratios = new ArrayList<>();
    for (int round = -WARM_UP_ROUNDS; round < rounds; round++) {
      long[] ops = new long[2];
      long[] nanos = new long[2];
      int[] order = Math.floorMod(round, 2) == 0 ? new int[] {0, 1, 1, 0}
          : new int[] {1, 0, 0, 1};
      for (int side : order) {
        long start = System.nanoTime();
        ops[side] += CommitTarget.count(side == 0 ? base : candidate, sliceMillis);
        nanos[side] += System.nanoTime() - start;
      }
      if (round >= 0) {
        ratios.add(((double) ops[1] / nanos[1]) / ((double) ops[0] / nanos[0]));
      }
    }
    Collections.sort(ratios);
    return new Result(quantile(ratios, 0.5), quantile(ratios, 0.1), quantile(ratios, 0.9),
        rounds);
  }

  /** Linear interpolation between the closest ranks of a sorted list. */
  private static double quantile(List<Double> sorted, double q) {
    double position = q * (sorted.size() - 1);
    int below = (int) Math.floor(position);
    int above = Math.min(sorted.size() - 1, below + 1);
    return sorted.get(below) + (position - below) * (sorted.get(above) - sorted.get(below));
  }
}
