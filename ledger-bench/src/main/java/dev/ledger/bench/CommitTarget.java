package dev.ledger.bench;

/** One competitor: performs durable commits one after another from one thread. */
interface CommitTarget extends AutoCloseable {
  /** Performs one durable commit; returns when it is durable. */
  void commit() throws Exception;

  @Override
  void close() throws Exception;

  /** Commits for about {@code millis} and returns commits per second. */
  static double rate(CommitTarget target, long millis) throws Exception {
    long start = System.nanoTime();
    long n = count(target, millis);
    return n * 1e9 / (System.nanoTime() - start);
  }

  /** Commits for about {@code millis} (at least once) and returns the number of commits. */
  static long count(CommitTarget target, long millis) throws Exception {
    long deadline = System.nanoTime() + millis * 1_000_000L;
    long n = 0;
    do {
      target.commit();
      n++;
    } while (System.nanoTime() < deadline);
    return n;
  }
}
