package dev.ledger.bench;

import dev.ledger.core.Durability;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.Versioned;
import dev.ledger.core.fs.FileLedgerStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Scenario 6: time to open a store, load a ledger with a long journal and make the first
 * durable commit: with the checkpoint at the tail (the store was closed cleanly), at two
 * journal lengths; and at the long one with the checkpoint a full checkpoint interval behind
 * the tail, as a kill just before a checkpoint leaves it, so that the open reads and folds an
 * interval of records after the checkpoint.
 *
 * <p>The crash case is made once and restored before each round: commits an interval past the
 * checkpoint, then {@code state.json} put back to the checkpoint before them (the bytes a
 * kill before the next checkpoint leaves there; the journal is append-only, so that
 * checkpoint's position is still a record boundary). A round's own commit adds one more
 * record after it, so the gap is the interval plus the rounds done before.
 */
final class OpenTimeScenario {
  static final String NAME = "6. Open time (new store + first load + first commit)";

  private OpenTimeScenario() {}

  static void run(BenchConfig config, History history, Report report) throws IOException {
    int small = config.histories().get(1);
    int longest = config.longHistory();
    int interval = LedgerOptions.defaults().checkpointInterval();
    Stats smallStats = report.stats(NAME, history.label(small) + ", checkpoint at the tail",
        "ms");
    Stats longStats = report.stats(NAME, history.label(longest) + ", checkpoint at the tail",
        "ms");
    Stats crashStats = report.stats(NAME, String.format(Locale.ROOT,
        "%s, last checkpoint %,d commits behind the tail (as after a kill)",
        history.label(longest), interval), "ms");
    String longRoot = History.rootId(longest);
    Path checkpoint = history.base.resolve("ledgers").resolve(longRoot).resolve("state.json");
    long[] checkpointRevision = new long[1];
    byte[] behind = crashState(history, longRoot, checkpoint, interval, checkpointRevision);
    open(history, longRoot); // back to a checkpoint at the tail for the other rows
    long minGap = Long.MAX_VALUE;
    long maxGap = 0;
    int rounds = Math.max(5, 2 * config.rounds());
    for (int round = 0; round <= rounds; round++) {
      double[] ms = new double[3];
      int first = Turns.firstOfRound(3);
      for (int k = 0; k < 3; k++) {
        switch ((first + k) % 3) {
          case 0 -> ms[0] = open(history, History.rootId(small)).millis();
          case 1 -> ms[1] = open(history, longRoot).millis();
          default -> {
            Files.write(checkpoint, behind);
            Opened o = open(history, longRoot); // its close checkpoints at the tail again
            ms[2] = o.millis();
            minGap = Math.min(minGap, o.revision() - checkpointRevision[0]);
            maxGap = Math.max(maxGap, o.revision() - checkpointRevision[0]);
          }
        }
      }
      if (round > 0) {
        smallStats.add(ms[0]);
        longStats.add(ms[1]);
        crashStats.add(ms[2]);
      }
    }
    report.ratio(NAME, String.format("%,d events / %,d events, checkpoint at the tail",
        longest, small), longStats, smallStats, Report.Goal.REPORT, 0);
    report.ratio(NAME, String.format("open at %,d events, checkpoint an interval behind, "
        + "median ms", longest), crashStats.median(), Report.Goal.AT_MOST, 50, "absolute");
    report.ratio(NAME, String.format("open at %,d events, checkpoint at the tail, median ms",
        longest), longStats.median(), Report.Goal.REPORT, 0, "absolute");
    report.note(String.format(Locale.ROOT, "Open after a kill: the long ledger got %,d commits "
        + "after its checkpoint, then its state.json was put back to that checkpoint before "
        + "each round (the journal is append-only, so it still points at a record boundary); "
        + "the rounds' own commits add to the gap, which was %,d to %,d commits (records of 1 "
        + "event and a ~2 KiB state) when the rounds loaded.", interval, minGap, maxGap));
  }

  /**
   * Commits {@code interval} times past the current checkpoint of {@code root} without a new
   * checkpoint reaching disk, and returns the checkpoint's bytes from before them.
   */
  private static byte[] crashState(History history, String root, Path checkpoint, int interval,
      long[] checkpointRevision) throws IOException {
    checkpointRevision[0] = open(history, root).revision() + 1; // its close checkpoints there
    byte[] before = Files.readAllBytes(checkpoint);
    LedgerOptions fast = LedgerOptions.defaults().withDurability(Durability.UNSAFE_NO_SYNC)
        .withCheckpointInterval(Integer.MAX_VALUE);
    try (FileLedgerStore store = FileLedgerStore.open(history.base, fast)) {
      Ledger<Workload.BenchState> ledger = store.ledger(root, Workload.BenchState.class);
      Versioned<Workload.BenchState> v = ledger.load();
      long revision = v.revision();
      long counter = v.state().counter();
      for (int i = 0; i < interval; i++) {
        counter++;
        revision = ledger.commit(revision, Workload.state(counter), Workload.event(counter))
            .revision();
      }
    }
    Files.write(checkpoint, before);
    return before;
  }

  /** Time of one open + load + commit, and the revision the load found. */
  private record Opened(double millis, long revision) {}

  private static Opened open(History history, String root) {
    long t0 = System.nanoTime();
    FileLedgerStore store = FileLedgerStore.open(history.base);
    try {
      Ledger<Workload.BenchState> ledger = store.ledger(root, Workload.BenchState.class);
      Versioned<Workload.BenchState> v = ledger.load();
      long next = v.state().counter() + 1;
      ledger.commit(v.revision(), Workload.state(next), Workload.event(next));
      return new Opened((System.nanoTime() - t0) / 1e6, v.revision());
    } finally {
      store.close(); // writes the checkpoint, so the next open finds a recent one
    }
  }
}
