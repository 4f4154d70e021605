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
    long deadline = start + millis * 1_000_000L;
    long n = 0;
    long now;
    do {
      target.commit();
      n++;
      now = System.nanoTime();
    } while (now < deadline);
    return n * 1e9 / (now - start);
  }
}
