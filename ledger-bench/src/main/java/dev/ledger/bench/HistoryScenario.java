package dev.ledger.bench;

import dev.ledger.core.fs.FileLedgerStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Scenario 2: durable commits per second on ledgers whose journals already hold 0 to 1M
 * events, against the reference design at small histories.
 */
final class HistoryScenario {
  static final String NAME = "2. Commit cost against history";

  private HistoryScenario() {}

  static void run(BenchConfig config, History history, Report report) throws Exception {
    report.note(String.format(java.util.Locale.ROOT,
        "History ledgers (%s events) built in %.1f s without force, 100 events per commit, "
            + "one checkpoint at the end; measured on the store reopened with default options.",
        config.histories(), history.buildSeconds));
    Map<String, CommitTarget> targets = new LinkedHashMap<>();
    Map<String, Stats> stats = new LinkedHashMap<>();
    try (FileLedgerStore store = FileLedgerStore.open(history.base)) {
      for (int events : config.histories()) {
        String name = "ledger, " + history.label(events) + " before";
        targets.put(name, new LedgerTarget(store, History.rootId(events), false));
        stats.put(name, report.stats(NAME, name, "commits/s"));
      }
      for (int events : config.referenceHistories()) {
        String name = String.format("reference design, %,d events before", events);
        targets.put(name, new ReferenceDesign(
            config.dir().resolve("s2/reference-" + events + "/ledger.json"), events));
        stats.put(name, report.stats(NAME, name, "commits/s"));
      }
      List<Turns.Slice> slices = new ArrayList<>();
      targets.values().forEach(t -> slices.add(Turns.of(t)));
      for (int round = 0; round <= config.rounds(); round++) {
        double[] rates = Turns.rates(slices, config.roundMillis());
        if (round > 0) {
          int i = 0;
          for (Stats s : stats.values()) {
            s.add(rates[i++]);
          }
        }
      }
    }
    Stats empty = stats.get("ledger, " + history.label(0) + " before");
    for (int events : config.histories()) {
      if (events == 0) {
        continue;
      }
      boolean longest = events == config.longHistory();
      report.ratio(NAME, String.format("%,d events / empty", events),
          stats.get("ledger, " + history.label(events) + " before"), empty,
          longest ? Report.Goal.AT_LEAST : Report.Goal.REPORT, 0.9);
    }
    int bigRef = config.referenceHistories().get(config.referenceHistories().size() - 1);
    report.ratio(NAME, String.format("reference design %,d events / empty", bigRef),
        stats.get(String.format("reference design, %,d events before", bigRef)),
        stats.get(String.format("reference design, %,d events before", 0)),
        Report.Goal.REPORT, 0);
  }
}
