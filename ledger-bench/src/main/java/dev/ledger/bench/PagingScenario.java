package dev.ledger.bench;

import dev.ledger.core.Cursor;
import dev.ledger.core.EventPage;
import dev.ledger.core.Ledger;
import dev.ledger.core.fs.FileLedgerStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Scenario 3: one page of events from a cursor at the start, the middle and near the end of
 * the long journal; and a full streaming replay in a child JVM with a 64 MiB heap, next to
 * reading the same journal bytes raw in that JVM.
 */
final class PagingScenario {
  static final String NAME = "3. Event paging and replay";
  private static final int READS_PER_ROUND = 20;

  private PagingScenario() {}

  static void run(BenchConfig config, History history, Report report) throws Exception {
    int longest = config.longHistory();
    String root = History.rootId(longest);
    String page = String.format("%,d-event page", history.pageSize);
    Stats start = report.stats(NAME, page + " from the start", "ms");
    Stats middle = report.stats(NAME, page + " from the middle", "ms");
    Stats end = report.stats(NAME, page + " from near the end", "ms");
    try (FileLedgerStore store = FileLedgerStore.open(history.base)) {
      Ledger<Workload.BenchState> ledger = store.ledger(root, Workload.BenchState.class);
      for (int round = 0; round <= config.rounds(); round++) {
        double s = pageMillis(ledger, Cursor.START, history.pageSize);
        double m = pageMillis(ledger, history.middle, history.pageSize);
        double e = pageMillis(ledger, history.nearEnd, history.pageSize);
        if (round > 0) {
          start.add(s);
          middle.add(m);
          end.add(e);
        }
      }
    }
    report.ratio(NAME, "page near the end / page at the start", end, start,
        Report.Goal.AT_MOST, 1.5);

    Path journal = history.base.resolve("ledgers").resolve(root).resolve("journal");
    String all = history.label(longest);
    Stats replayRate = report.stats(NAME, "replay of all " + all
        + ", child JVM -Xmx64m, first pass (fresh JVM)", "events/s");
    Stats replayBytes = report.stats(NAME, "replay, first pass, journal bytes read", "MB/s");
    Stats warmBytes = report.stats(NAME, "replay, second pass in the same JVM (compiled), "
        + "journal bytes read", "MB/s");
    Stats rawBytes = report.stats(NAME, "raw read of the same journal files, same JVM", "MB/s");
    Stats replayCpu = report.stats(NAME, "replay, second pass, thread CPU per event", "µs");
    Stats rawCpu = report.stats(NAME, "raw read, thread CPU per journal MB", "ms");
    Stats cpuRatio = new Stats();
    int rounds = Math.min(config.rounds(), 3);
    for (int round = 0; round < rounds; round++) {
      Map<String, Long> r = child(history.base, root, journal, round % 2 == 1);
      double mb = r.get("bytes") / 1e6;
      replayRate.add(r.get("events") * 1e9 / r.get("replayNanos"));
      replayBytes.add(mb * 1e9 / r.get("replayNanos"));
      warmBytes.add(mb * 1e9 / r.get("warmReplayNanos"));
      rawBytes.add(mb * 1e9 / r.get("rawNanos"));
      replayCpu.add(r.get("warmReplayCpuNanos") / 1e3 / r.get("events"));
      rawCpu.add(r.get("rawCpuNanos") / 1e6 / mb);
      cpuRatio.add((double) r.get("rawCpuNanos") / r.get("warmReplayCpuNanos"));
    }
    report.ratio(NAME, "replay MB/s, second pass / raw read MB/s", warmBytes, rawBytes,
        Report.Goal.AT_LEAST, 0.4);
    report.ratio(NAME, "replay MB/s, first pass in a fresh JVM / raw read MB/s", replayBytes,
        rawBytes, Report.Goal.REPORT, 0);
    report.ratio(NAME, "replay / raw read, by thread CPU time (second pass; median of rounds)",
        cpuRatio.median(), Report.Goal.REPORT, 0, "load-independent");
    report.note("Replay and raw read both run from the page cache (the journal was just "
        + "written); the raw read only counts newlines in 64 KiB buffers. Each child JVM "
        + "replays twice: the first pass includes loading and compiling the code, the second "
        + "runs compiled; the raw read runs before the replays in odd rounds, after them in "
        + "even ones.");
  }

  private static double pageMillis(Ledger<?> ledger, Cursor after, int limit) {
    long t0 = System.nanoTime();
    for (int i = 0; i < READS_PER_ROUND; i++) {
      EventPage p = ledger.events(after, limit);
      if (p.events().size() != limit) {
        throw new IllegalStateException("short page: " + p.events().size());
      }
    }
    return (System.nanoTime() - t0) / 1e6 / READS_PER_ROUND;
  }

  private static Map<String, Long> child(Path base, String root, Path journal,
      boolean rawFirst) throws IOException, InterruptedException {
    return ChildRun.longs(ChildRun.result("replay child", ReplayChild.class, List.of("-Xmx64m"),
        List.of(base.toString(), root, journal.toString(),
            rawFirst ? "raw-first" : "replay-first"), "events"));
  }
}
