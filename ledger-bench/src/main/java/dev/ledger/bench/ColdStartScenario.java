package dev.ledger.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Part of scenario 1: the commit contenders again, each from a fresh JVM (a child process)
 * over its first {@link #commits} commits, beside their warmed figures of the same run. The
 * warm rounds of scenario 1 run after a warm-up round in a JVM whose commit path other
 * contenders have compiled already; an application that starts, commits and exits never
 * reaches that state, so its cold figure is reported too, and judged against the warm one.
 */
final class ColdStartScenario {
  /** Contender keys of {@link ColdStartChild}, with the scenario 1 row each is the cold twin of. */
  static final Map<String, String> KINDS = new LinkedHashMap<>();

  static {
    KINDS.put("ledger-sync", SingleLedgerScenario.SYNC);
    KINDS.put("ledger-no-sync", SingleLedgerScenario.NO_SYNC);
    KINDS.put("ledger-64k-small", SingleLedgerScenario.LARGE_SMALL);
    KINDS.put("floor", SingleLedgerScenario.FLOOR);
    KINDS.put("sqlite-full", SingleLedgerScenario.SQLITE_FULL);
    KINDS.put("json-append", SingleLedgerScenario.JSON_APPEND);
  }

  private ColdStartScenario() {}

  /** The "first 10,000 commits" in the published run; a few hundred in the smoke. */
  static int commits(BenchConfig config) {
    return config.roundMillis() >= 1000 ? 10_000 : 200;
  }

  /**
   * Runs every contender cold, {@code min(rounds, 3)} times in rotating order, and adds its
   * rows and ratios; {@code warm} holds scenario 1's stats by row name.
   */
  static void run(BenchConfig config, Report report, String scenario, Map<String, Stats> warm)
      throws IOException, InterruptedException {
    int commits = commits(config);
    Map<String, Stats> cold = new LinkedHashMap<>();
    Map<String, Stats> coldCpu = new LinkedHashMap<>();
    for (Map.Entry<String, String> kind : KINDS.entrySet()) {
      cold.put(kind.getKey(), report.stats(scenario, String.format(Locale.ROOT,
          "cold: %s, fresh JVM, first %,d commits", kind.getValue(), commits), "commits/s"));
      coldCpu.put(kind.getKey(), report.stats(scenario, String.format(Locale.ROOT,
          "cold: %s, committing thread CPU per commit", kind.getValue()), "µs"));
    }
    List<String> kinds = new ArrayList<>(KINDS.keySet());
    int rounds = Math.min(config.rounds(), 3);
    for (int round = 0; round < rounds; round++) {
      int first = Turns.firstOfRound(kinds.size());
      for (int k = 0; k < kinds.size(); k++) {
        String kind = kinds.get((first + k) % kinds.size());
        Path dir = config.dir().resolve("s1-cold/" + kind + "-" + round);
        Map<String, Long> r = child(kind, dir, commits);
        cold.get(kind).add(r.get("commits") * 1e9 / r.get("nanos"));
        coldCpu.get(kind).add(r.get("cpuNanos") / 1e3 / r.get("commits"));
        ScratchFiles.deleteTree(dir);
      }
    }
    for (Map.Entry<String, String> kind : KINDS.entrySet()) {
      boolean judged = kind.getKey().startsWith("ledger");
      report.ratio(scenario, "cold / warm: " + kind.getValue(), cold.get(kind.getKey()),
          warm.get(kind.getValue()), judged ? Report.Goal.AT_LEAST : Report.Goal.REPORT, 0.7);
    }
    report.ratio(scenario, "cold: ledger / floor of record (each from a fresh JVM)",
        cold.get("ledger-sync"), cold.get("floor"), Report.Goal.REPORT, 0);
    report.ratio(scenario, "cold: ledger / SQLite FULL (each from a fresh JVM)",
        cold.get("ledger-sync"), cold.get("sqlite-full"), Report.Goal.REPORT, 0);
    report.note(String.format(Locale.ROOT, "Cold rows: each contender in its own fresh JVM "
        + "(a child process, default heap) on a new directory, timed over its first %,d "
        + "commits from the first commit's call; %d rounds, contenders in rotating order. The "
        + "warm rows are the same contenders in this JVM after a warm-up round. Cold / warm is "
        + "judged (>= 0.7) for the ledger's rows only.", commits, rounds));
  }

  private static Map<String, Long> child(String kind, Path dir, int commits)
      throws IOException, InterruptedException {
    return ChildRun.longs(ChildRun.result("cold-start child " + kind, ColdStartChild.class,
        List.of(), List.of(kind, dir.toString(), Integer.toString(commits)), "commits"));
  }
}
