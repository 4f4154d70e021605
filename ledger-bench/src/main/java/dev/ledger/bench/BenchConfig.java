package dev.ledger.bench;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * Sizes and rounds of one run. {@link #full} is the published configuration (under ten
 * minutes on two shared cores); {@link #smoke} runs every scenario in seconds, for the build.
 *
 * @param dir where stores are created (all competitors share it, so one disk)
 * @param rounds measured rounds per competitor (after one warm-up)
 * @param roundMillis length of one timed round of commits
 * @param histories journal lengths (events) for the history, paging and open-time scenarios;
 *     the last one is "the long journal"
 * @param referenceHistories history lengths at which the reference design is also measured
 * @param largeStateBytes size of the large state
 * @param largeStateCommits commits per round with the large state
 * @param threads threads of the concurrency scenario
 * @param blobBytes size of the file put as a blob
 * @param blobRounds rounds of the blob put (each reads and writes {@code blobBytes})
 * @param snapshots snapshot counts in a root for getForAttempt: small, then large
 * @param scenarios which scenarios to run (1 to 10, 12 and 13 by default; 11, PostgreSQL,
 *     which starts a server of its own, only when named)
 * @param manyLedgers ledgers of the many-ledgers scenario (9)
 * @param followCommits commits per mode of the follow latency scenario (10)
 * @param collectionDocs documents of the small and the large partition of the collections
 *     scenario (12)
 * @param registryRuns runs of the small and the large registry of the registry scenario (13)
 */
record BenchConfig(
    Path dir,
    int rounds,
    long roundMillis,
    List<Integer> histories,
    List<Integer> referenceHistories,
    int largeStateBytes,
    int largeStateCommits,
    int threads,
    long blobBytes,
    int blobRounds,
    List<Integer> snapshots,
    Set<Integer> scenarios,
    int manyLedgers,
    int followCommits,
    List<Integer> collectionDocs,
    List<Integer> registryRuns) {

  static BenchConfig full(Path dir) {
    return new BenchConfig(dir, 5, 1000, List.of(0, 10_000, 100_000, 1_000_000),
        List.of(0, 1_000), 1 << 20, 300, 8, 1L << 30, 3, List.of(100, 100_000),
        Set.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13), 100_000, 2000, List.of(1_000, 100_000),
        List.of(1_000, 100_000));
  }

  static BenchConfig smoke(Path dir) {
    return new BenchConfig(dir, 1, 50, List.of(0, 200, 500, 1_000), List.of(0, 100),
        64 * 1024, 8, 2, 1L << 20, 1, List.of(10, 50),
        Set.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13), 200, 50, List.of(100, 1_000),
        List.of(100, 1_000));
  }

  BenchConfig withRounds(int value) {
    return new BenchConfig(dir, value, roundMillis, histories, referenceHistories,
        largeStateBytes, largeStateCommits, threads, blobBytes, blobRounds, snapshots, scenarios,
        manyLedgers, followCommits, collectionDocs, registryRuns);
  }

  BenchConfig withScenarios(Set<Integer> value) {
    return new BenchConfig(dir, rounds, roundMillis, histories, referenceHistories,
        largeStateBytes, largeStateCommits, threads, blobBytes, blobRounds, snapshots, value,
        manyLedgers, followCommits, collectionDocs, registryRuns);
  }

  BenchConfig withManyLedgers(int value) {
    return new BenchConfig(dir, rounds, roundMillis, histories, referenceHistories,
        largeStateBytes, largeStateCommits, threads, blobBytes, blobRounds, snapshots, scenarios,
        value, followCommits, collectionDocs, registryRuns);
  }

  BenchConfig withCollectionDocs(int large) {
    return new BenchConfig(dir, rounds, roundMillis, histories, referenceHistories,
        largeStateBytes, largeStateCommits, threads, blobBytes, blobRounds, snapshots, scenarios,
        manyLedgers, followCommits, List.of(collectionDocs.get(0), large), registryRuns);
  }

  BenchConfig withRegistryRuns(int large) {
    return new BenchConfig(dir, rounds, roundMillis, histories, referenceHistories,
        largeStateBytes, largeStateCommits, threads, blobBytes, blobRounds, snapshots, scenarios,
        manyLedgers, followCommits, collectionDocs, List.of(registryRuns.get(0), large));
  }

  int longHistory() {
    return histories.get(histories.size() - 1);
  }
}
