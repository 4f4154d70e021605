package dev.ledger.bench;

/**
 * The documents and queue items of the collection scenarios: ~1 KiB rollout-like documents
 * keyed by {@code id}, with an indexed {@code group} field that holds exactly 50 documents
 * per value whatever the collection's size, and an unindexed {@code worker} field.
 */
final class CollectionWorkload {
  /** Documents per {@code group} value: what the indexed query returns. */
  static final int GROUP_SIZE = 50;
  private static final String BODY = Workload.filler(880);

  private CollectionWorkload() {}

  /** One document; its JSON is about 1 KiB. */
  record BenchDoc(String id, String group, String status, String worker, long attempt,
      String body) {}

  /** A queued item. */
  record BenchItem(String rolloutId, long enqueuedAt) {}

  static String id(long i) {
    return String.format("rollout-%09d", i);
  }

  static String group(long i) {
    return "group-" + (i / GROUP_SIZE);
  }

  /** Workers cycle over 1,000 names; the unindexed filter picks one of them (0.1%). */
  static String worker(long i) {
    return "worker-" + (i % 1000);
  }

  static BenchDoc doc(long i, long attempt) {
    return new BenchDoc(id(i), group(i), attempt % 2 == 0 ? "queuing" : "running", worker(i),
        attempt, BODY);
  }
}
