package dev.ledger.bench;

import dev.ledger.core.Change;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.fs.FileLedgerStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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
 * rounds. The store counts its journal forces ({@code ledger.journal.forces}, a meter
 * registry on all of its ledgers alike), so the rows also give forces per acknowledged
 * commit: 1.0 for one thread, less when racing updates share forces (group commit), a figure
 * the machine's load does not change the way it changes rates.
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
    Stats forcesRace = report.stats(NAME, "  journal forces per successful update (racing)",
        "forces");
    Stats forces1 = report.stats(NAME, "  journal forces per commit (1 thread, 1 ledger)",
        "forces");
    ExecutorService pool = Executors.newFixedThreadPool(n);
    List<CommitTarget> floors = new ArrayList<>();
    List<CommitTarget> ledgers = new ArrayList<>();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    FileLedgerStore store = FileLedgerStore.open(dir.resolve("ledger"),
        LedgerOptions.defaults().withMeterRegistry(registry));
    Counter forces = registry.get("ledger.journal.forces").counter();
    try {
      for (int i = 0; i < n; i++) {
        floors.add(new FloorAppend(dir.resolve("floor/records-" + i)));
        ledgers.add(new LedgerTarget(store, "parallel-" + i, false));
      }
      Ledger<Workload.BenchState> shared = store.ledger("shared", Workload.BenchState.class);
      shared.commit(Ledger.NO_REVISION, Workload.state(0), Workload.event(0));
      RaceCounts counts = new RaceCounts();
      Forced forced1 = new Forced(forces, Turns.of(ledgers.get(0)));
      Forced forcedRace = new Forced(forces, millis -> race(pool, shared, n, millis, counts));
      List<Turns.Slice> slices = List.of(Turns.of(floors.get(0)),
          millis -> parallel(pool, floors, millis), forced1,
          millis -> parallel(pool, ledgers, millis), forcedRace);
      for (int round = 0; round <= config.rounds(); round++) {
        counts.reset();
        forced1.reset();
        forcedRace.reset();
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
          forces1.add(forced1.perOperation());
          forcesRace.add(forcedRace.perOperation());
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
    // The target above asks the ledger to scale by 2 from 1 to n ledgers; the device itself
    // may scale by less from 1 to n files. This is how the ledger scales against that.
    double deviceScaling = floorN.median() / floor1.median();
    report.ratio(NAME, n + " ledgers / floor " + n + " files vs 1 ledger / floor 1 file",
        (ledgerN.median() / floorN.median()) / (ledger1.median() / floor1.median()),
        Report.Goal.REPORT, 0, String.format("the floor's own " + n
            + " files / 1 file is %.2f", deviceScaling));
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

  /**
   * A contender whose journal forces are counted: the store's force counter read around each
   * of its slices (contenders run one at a time, so the difference is its own).
   */
  private static final class Forced implements Turns.Slice {
    private final Counter forces;
    private final Turns.Slice slice;
    private double forced;
    private long operations;

    Forced(Counter forces, Turns.Slice slice) {
      this.forces = forces;
      this.slice = slice;
    }

    @Override
    public long run(long millis) throws Exception {
      double before = forces.count();
      long done = slice.run(millis);
      forced += forces.count() - before;
      operations += done;
      return done;
    }

    void reset() {
      forced = 0;
      operations = 0;
    }

    double perOperation() {
      return operations == 0 ? Double.NaN : forced / operations;
    }
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
