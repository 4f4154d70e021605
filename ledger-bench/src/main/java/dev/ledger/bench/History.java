package dev.ledger.bench;

import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Durability;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.fs.FileLedgerStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * Ledgers with long journals, built fast: without {@code force} and with one checkpoint at
 * the end (the store's close), 100 events per commit. The measurements then reopen the store
 * with the default, durable options. Keeps the cursors the paging scenario starts from.
 */
final class History {
  private static final int EVENTS_PER_COMMIT = 100;

  final Path base;
  final int pageSize;
  Cursor middle;
  Cursor nearEnd;
  double buildSeconds;
  /** Commits of each history ledger when it was built, by its event count. */
  private final Map<Integer, Long> commits = new HashMap<>();

  private History(Path base, int pageSize) {
    this.base = base;
    this.pageSize = pageSize;
  }

  static String rootId(int events) {
    return "history-" + events;
  }

  /**
   * "N events in M commits" for the history ledger of {@code events}, as built: how many
   * records a reader walks, not only how many events they hold.
   */
  String label(int events) {
    long m = commits.getOrDefault(events, 0L);
    return String.format(Locale.ROOT, "%,d events in %,d commit%s", events, m, m == 1 ? "" : "s");
  }

  static History build(BenchConfig config) {
    long t0 = System.nanoTime();
    int longest = config.longHistory();
    History h = new History(config.dir().resolve("history"),
        Math.max(1, Math.min(1000, longest / 4)));
    LedgerOptions fast = LedgerOptions.defaults().withDurability(Durability.UNSAFE_NO_SYNC)
        .withCheckpointInterval(10_000_000);
    try (FileLedgerStore store = FileLedgerStore.open(h.base, fast)) {
      for (int events : config.histories()) {
        h.fill(store.ledger(rootId(events), Workload.BenchState.class), events,
            events == longest);
      }
    }
    h.buildSeconds = (System.nanoTime() - t0) / 1e9;
    return h;
  }

  private void fill(Ledger<Workload.BenchState> ledger, int events, boolean keepCursors) {
    TreeSet<Integer> marks = new TreeSet<>(List.of(events));
    if (keepCursors) {
      marks.add(events / 2);
      marks.add(events - pageSize);
    }
    long revision = Ledger.NO_REVISION;
    int committed = 0;
    long counter = 0;
    while (committed < events) {
      int mark = marks.higher(committed);
      int n = Math.min(EVENTS_PER_COMMIT, mark - committed);
      List<EventDraft> drafts = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        drafts.add(Workload.event(++counter));
      }
      CommitResult r = ledger.commit(revision, Workload.state(counter), drafts);
      revision = r.revision();
      commits.merge(events, 1L, Long::sum);
      committed += n;
      if (keepCursors && committed == events / 2) {
        middle = r.cursor();
      }
      if (keepCursors && committed == events - pageSize) {
        nearEnd = r.cursor();
      }
    }
  }
}
