package dev.ledger.bench;

/** Small timing helpers shared by the collection and registry scenarios. */
final class Timing {
  private Timing() {}

  /** An operation timed by {@link #loop}. */
  interface Op {
    void run() throws Exception;
  }

  /** An operation that returns how many results it produced, timed by {@link #micros}. */
  interface Counted {
    int run() throws Exception;
  }

  /** Runs {@code op} at least once and until {@code millis} have passed; returns how often. */
  static long loop(long millis, Op op) throws Exception {
    long deadline = System.nanoTime() + millis * 1_000_000L;
    long n = 0;
    do {
      op.run();
      n++;
    } while (System.nanoTime() < deadline);
    return n;
  }

  /** The wall time of one run of {@code op}, in microseconds. */
  static double micros(Counted op) throws Exception {
    long t0 = System.nanoTime();
    op.run();
    return (System.nanoTime() - t0) / 1e3;
  }

  /** {@code actual}, if it is the {@code expected} count of results. */
  static int check(int expected, int actual) {
    if (expected != actual) {
      throw new IllegalStateException("expected " + expected + " results, got " + actual);
    }
    return actual;
  }
}
