package dev.ledger.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Samples of one measurement across rounds: median, min and max. */
final class Stats {
  private final List<Double> samples = new ArrayList<>();

  void add(double value) {
    samples.add(value);
  }

  boolean isEmpty() {
    return samples.isEmpty();
  }

  int count() {
    return samples.size();
  }

  double median() {
    List<Double> sorted = sorted();
    int n = sorted.size();
    if (n == 0) {
      return Double.NaN;
    }
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  double min() {
    return samples.isEmpty() ? Double.NaN : Collections.min(samples);
  }

  double max() {
    return samples.isEmpty() ? Double.NaN : Collections.max(samples);
  }

  private List<Double> sorted() {
    List<Double> sorted = new ArrayList<>(samples);
    Collections.sort(sorted);
    return sorted;
  }
}
