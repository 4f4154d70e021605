package dev.ledger.bench;

import dev.ledger.core.Change;
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
      RaceCounts counts = new RaceCounts();
      List<Turns.Slice> slices = List.of(Turns.of(floors.get(0)),
          millis -> parallel(pool, floors, millis), Turns.of(ledgers.get(0)),
          millis -> parallel(pool, ledgers, millis),
          millis -> race(pool, shared, n, millis, counts));
      for (int round = 0; round <= config.rounds(); round++) {
        counts.reset();
        double[] rates = Turns.rates(slices, config.roundMillis());
        if (round > 0) {
          floor1.add(rates[0]);
          floorN.add(rates[1]);
          ledger1.add(rates[2]);
          ledgerN.add(rates[3]);
          race.add(rates[4]);
          long ok = counts.ok.get();
          retries.add(ok == 0 ? Double.NaN : (double) (counts.calls.get() - ok) / ok);
          failures.add(counts.gaveUp.get());
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
    // Issue 14's group-commit target: n threads updating one ledger, against one thread alone.
    report.ratio(NAME, "racing on 1 ledger / 1 thread", race, ledger1, Report.Goal.AT_LEAST,
        2.0);
  }

  /** Each target committed from its own thread for {@code millis}; total commits. */
  private static long parallel(ExecutorService pool, List<CommitTarget> targets, long millis)
      throws Exception {
    List<Future<Long>> futures = new ArrayList<>();
    for (CommitTarget t : targets) {
      futures.add(pool.submit(() -> CommitTarget.count(t, millis)));
    }
    long total = 0;
    for (Future<Long> f : futures) {
      total += f.get();
    }
    return total;
  }

  /** Successful updates, change-function calls and updates that gave up, over a round. */
  private static final class RaceCounts {
    final AtomicLong ok = new AtomicLong();
    final AtomicLong calls = new AtomicLong();
    final AtomicLong gaveUp = new AtomicLong();

    void reset() {
      ok.set(0);
      calls.set(0);
      gaveUp.set(0);
    }
  }

  /** {@code threads} threads race through {@code update} for {@code millis}; successes. */
  private static long race(ExecutorService pool, Ledger<Workload.BenchState> shared,
      int threads, long millis, RaceCounts counts) throws Exception {
    long deadline = System.nanoTime() + millis * 1_000_000L;
    AtomicLong ok = new AtomicLong();
    List<Future<?>> futures = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      futures.add(pool.submit((Callable<Void>) () -> {
        while (System.nanoTime() < deadline) {
          try {
            shared.update(s -> {
              counts.calls.incrementAndGet();
              return Change.to(Workload.state(s.counter() + 1), Workload.event(System.nanoTime()));
            });
            ok.incrementAndGet();
          } catch (RevisionConflictException e) {
            counts.gaveUp.incrementAndGet();
          }
        }
        return null;
      }));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    counts.ok.addAndGet(ok.get());
    return ok.get();
  }
}
