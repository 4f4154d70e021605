package dev.ledger.bench;

import dev.ledger.core.Ledger;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.fs.FileLedgerStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Scenario 5: N threads on N ledgers, N threads racing on one ledger through
 * {@code update}, one thread on one ledger, and the floor with one and N files, in the same
 * rounds.
 */
final class ConcurrencyScenario {
  static final String NAME = "5. Concurrency";

  private ConcurrencyScenario() {}

  static void run(BenchConfig config, Report report) throws Exception {
    int n = config.threads();
    Path dir = config.dir().resolve("s5");
    Stats floor1 = report.stats(NAME, "floor, 1 thread, 1 file", "commits/s");
    Stats floorN = report.stats(NAME, "floor, " + n + " threads, " + n + " files", "commits/s");
    Stats ledger1 = report.stats(NAME, "ledger, 1 thread, 1 ledger", "commits/s");
    Stats ledgerN = report.stats(NAME, "ledger, " + n + " threads, " + n + " ledgers",
        "commits/s");
    Stats race = report.stats(NAME, "ledger, " + n + " threads racing on 1 ledger (update)",
        "commits/s");
    Stats retries = report.stats(NAME, "  conflict retries per successful update", "retries");
    Stats failures = report.stats(NAME, "  updates that ran out of attempts", "per round");
    ExecutorService pool = Executors.newFixedThreadPool(n);
    List<CommitTarget> floors = new ArrayList<>();
    List<CommitTarget> ledgers = new ArrayList<>();
    FileLedgerStore store = FileLedgerStore.open(dir.resolve("ledger"));
    try {
      for (int i = 0; i < n; i++) {
        floors.add(new FloorAppend(dir.resolve("floor/records-" + i)));
        ledgers.add(new LedgerTarget(store, "parallel-" + i, false));
      }
      Ledger<Workload.BenchState> shared = store.ledger("shared", Workload.BenchState.class);
      shared.commit(Ledger.NO_REVISION, Workload.state(0), Workload.event(0));
      for (int round = 0; round <= config.rounds(); round++) {
        boolean keep = round > 0;
        double f1 = CommitTarget.rate(floors.get(0), config.roundMillis());
        double fn = parallel(pool, floors, config.roundMillis());
        double l1 = CommitTarget.rate(ledgers.get(0), config.roundMillis());
        double ln = parallel(pool, ledgers, config.roundMillis());
        long[] raceResult = race(pool, shared, n, config.roundMillis());
        if (keep) {
          floor1.add(f1);
          floorN.add(fn);
          ledger1.add(l1);
          ledgerN.add(ln);
          race.add(raceResult[0] * 1e9 / raceResult[3]);
          retries.add(raceResult[0] == 0 ? Double.NaN
              : (double) raceResult[1] / raceResult[0]);
          failures.add(raceResult[2]);
        }
      }
    } finally {
      pool.shutdownNow();
      for (CommitTarget f : floors) {
        f.close();
      }
      store.close();
    }
    report.ratio(NAME, n + " ledgers / 1 ledger", ledgerN, ledger1, Report.Goal.AT_LEAST, 2.0);
    report.ratio(NAME, n + " ledgers / floor at " + n + " files", ledgerN, floorN,
        Report.Goal.AT_LEAST, 0.8);
    report.ratio(NAME, "floor " + n + " files / floor 1 file", floorN, floor1,
        Report.Goal.REPORT, 0);
    report.ratio(NAME, "racing on 1 ledger / 1 thread", race, ledger1, Report.Goal.REPORT, 0);
  }

  /** Each target committed from its own thread for {@code millis}; total commits/s. */
  private static double parallel(ExecutorService pool, List<CommitTarget> targets, long millis)
      throws Exception {
    List<Future<Double>> futures = new ArrayList<>();
    for (CommitTarget t : targets) {
      futures.add(pool.submit(() -> CommitTarget.rate(t, millis)));
    }
    double total = 0;
    for (Future<Double> f : futures) {
      total += f.get();
    }
    return total;
  }

  /** Returns {successful updates, retries, updates that gave up, elapsed nanos}. */
  private static long[] race(ExecutorService pool, Ledger<Workload.BenchState> shared,
      int threads, long millis) throws Exception {
    AtomicLong ok = new AtomicLong();
    AtomicLong calls = new AtomicLong();
    AtomicLong gaveUp = new AtomicLong();
    long start = System.nanoTime();
    long deadline = start + millis * 1_000_000L;
    List<Future<?>> futures = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      futures.add(pool.submit((Callable<Void>) () -> {
        while (System.nanoTime() < deadline) {
          long[] seen = new long[1];
          try {
            shared.update(s -> {
              calls.incrementAndGet();
              seen[0] = s.counter() + 1;
              return Workload.state(seen[0]);
            }, Workload.event(System.nanoTime()));
            ok.incrementAndGet();
          } catch (RevisionConflictException e) {
            gaveUp.incrementAndGet();
          }
        }
        return null;
      }));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    long elapsedNanos = System.nanoTime() - start;
    return new long[] {ok.get(), calls.get() - ok.get(), gaveUp.get(), elapsedNanos};
  }
}
