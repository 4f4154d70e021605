package dev.ledger.bench;

import dev.ledger.core.Ledger;
import dev.ledger.core.Versioned;
import dev.ledger.core.fs.FileLedgerStore;

/**
 * Scenario 6: time to open a store, load a ledger with a long journal and a recent
 * checkpoint, and make the first durable commit, at two journal lengths.
 */
final class OpenTimeScenario {
  static final String NAME = "6. Open time (new store + first load + first commit)";

  private OpenTimeScenario() {}

  static void run(BenchConfig config, History history, Report report) {
    int small = config.histories().get(1);
    int longest = config.longHistory();
    Stats smallStats = report.stats(NAME, String.format("%,d events", small), "ms");
    Stats longStats = report.stats(NAME, String.format("%,d events", longest), "ms");
    int rounds = Math.max(5, 2 * config.rounds());
    for (int round = 0; round <= rounds; round++) {
      double s = openMillis(history, History.rootId(small));
      double l = openMillis(history, History.rootId(longest));
      if (round > 0) {
        smallStats.add(s);
        longStats.add(l);
      }
    }
    report.ratio(NAME, String.format("%,d events / %,d events", longest, small), longStats,
        smallStats, Report.Goal.REPORT, 0);
    report.ratio(NAME, String.format("open at %,d events, median ms", longest),
        longStats.median(), Report.Goal.AT_MOST, 50, "absolute");
  }

  private static double openMillis(History history, String root) {
    long t0 = System.nanoTime();
    double ms;
    FileLedgerStore store = FileLedgerStore.open(history.base);
    try {
      Ledger<Workload.BenchState> ledger = store.ledger(root, Workload.BenchState.class);
      Versioned<Workload.BenchState> v = ledger.load();
      long next = v.state().counter() + 1;
      ledger.commit(v.revision(), Workload.state(next), Workload.event(next));
      ms = (System.nanoTime() - t0) / 1e6;
    } finally {
      store.close(); // writes the checkpoint, so the next open finds a recent one
    }
    return ms;
  }
}
