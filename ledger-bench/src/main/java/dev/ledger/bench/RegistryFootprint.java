package dev.ledger.bench;

import dev.ledger.core.Durability;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.registry.RegistryOptions;
import dev.ledger.registry.RunFilters;
import dev.ledger.registry.RunRecord;
import dev.ledger.registry.RunRegistry;
import dev.ledger.registry.RunStatus;
import dev.ledger.registry.collections.CollectionRunRegistry;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The registry's footprint at N runs, each figure taken in a fresh JVM (a child process):
 * the cold open (open the store, the registry and answer the first {@code listRuns} by two
 * statuses, a page of 50) against SQLite opening its file and answering the same query, and
 * the heap after GC that the open registry holds, per run, against the size of a run's JSON.
 * Both sides are filled as scenario 13 fills them ({@link RegistryWorkload}); scenario 13
 * runs the same children on its large registry ({@link #open}).
 *
 * <pre>
 * java -cp ... dev.ledger.bench.RegistryFootprint [--runs N] [--opens N] [--dir PATH]
 * (a child: --child ledger STORE-DIR PARTITION, or --child sqlite DB-FILE)
 * </pre>
 */
public final class RegistryFootprint {
  private RegistryFootprint() {}

  /**
   * Fills both stores, then opens each {@code --opens} times in child JVMs and prints the
   * medians; a child is this class with {@code --child ledger|sqlite ...} (see the class).
   *
   * @param args the flags
   * @throws Exception if a store or a child fails
   */
  public static void main(String[] args) throws Exception {
    if (args.length >= 3 && args[0].equals("--child")) {
      child(args[1], Path.of(args[2]), args.length > 3 ? args[3] : null);
      return;
    }
    int runs = 10_000;
    int opens = 3;
    Path parent = Path.of("target");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--runs" -> runs = Integer.parseInt(args[++i]);
        case "--opens" -> opens = Integer.parseInt(args[++i]);
        case "--dir" -> parent = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown flag " + args[i]);
      }
    }
    Files.createDirectories(parent);
    Path dir = Files.createTempDirectory(parent, "registry-footprint");
    try {
      long t0 = System.nanoTime();
      LedgerOptions fast = options().withDurability(Durability.UNSAFE_NO_SYNC);
      try (FileLedgerStore store = FileLedgerStore.open(dir.resolve("ledger"), fast)) {
        RegistryScenario.populate(CollectionRunRegistry.on(store, RegistryOptions.defaults()
            .withPartition("registry")), Files.createDirectories(dir.resolve("workspace")),
            runs);
      }
      double fill = (System.nanoTime() - t0) / 1e9;
      Path db = dir.resolve("sqlite/runs.db");
      try (SqliteRunRegistry sqlite = new SqliteRunRegistry(db)) {
        sqlite.populate(runs);
      }
      System.out.printf("filled %,d runs in %.1f s through the registry API (no force)%n",
          runs, fill);
      double[] ledgerMs = new double[opens];
      double[] sqliteMs = new double[opens];
      double[] heldPerRun = new double[opens];
      double json = 0;
      for (int i = 0; i < opens; i++) {
        Map<String, Double> ledger = open("ledger", dir.resolve("ledger"), "registry");
        ledgerMs[i] = ledger.get("ms");
        heldPerRun[i] = ledger.get("heldBytes") / runs;
        json = ledger.get("recordJsonBytes");
        sqliteMs[i] = open("sqlite", db, null).get("ms");
      }
      System.out.printf(Locale.ROOT, "cold open + first listRuns at %,d runs, median of %d"
          + " child JVMs: ledger %.1f ms, SQLite %.1f ms (ledger/SQLite time %.2f); heap held"
          + " by the open registry %,.0f bytes per run (a run record as JSON ~%,.0f bytes);"
          + " load average %.2f%n", runs, opens, median(ledgerMs), median(sqliteMs),
          median(ledgerMs) / median(sqliteMs), median(heldPerRun), json,
          ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
      System.out.printf("partition on disk: %,d bytes (%,.0f per run)%n",
          ScratchFiles.size(dir.resolve("ledger")),
          ScratchFiles.size(dir.resolve("ledger")) / (double) runs);
    } finally {
      ScratchFiles.deleteTree(dir);
    }
  }

  /** The options of scenario 13: room for the checkpoint of a large partition. */
  static LedgerOptions options() {
    return LedgerOptions.defaults().withLimits(512 << 20, 1 << 20);
  }

  private static Set<RunStatus> queried() {
    Set<RunStatus> statuses = EnumSet.noneOf(RunStatus.class);
    for (String status : RegistryWorkload.QUERIED) {
      statuses.add(RunStatus.of(status));
    }
    return statuses;
  }

  /**
   * Opens a registry cold, in a child JVM (default heap), and answers the first
   * {@code listRuns} by {@link RegistryWorkload#QUERIED}, a page of
   * {@link RegistryWorkload#PAGE}. For {@code ledger}, {@code target} is the store directory
   * and {@code partition} the registry's partition; for {@code sqlite}, {@code target} is the
   * database file. Nothing else may have the store open for writing meanwhile.
   *
   * @return {@code ms} (wall, from before the store is opened to the page in hand),
   *     {@code cpuMs} (the child's process CPU over the same span, every thread), {@code rows}
   *     (the page's size), and for the ledger {@code heldBytes} (heap after GC held by the
   *     open registry) and {@code recordJsonBytes} (mean JSON size of the page's records)
   */
  static Map<String, Double> open(String kind, Path target, String partition)
      throws Exception {
    List<String> args = new ArrayList<>(List.of("--child", kind, target.toString()));
    if (partition != null) {
      args.add(partition);
    }
    return ChildRun.doubles(ChildRun.result("registry open child (" + kind + ")",
        RegistryFootprint.class, List.of(), args, "ms"));
  }

  private static void child(String kind, Path target, String partition) throws Exception {
    if (kind.equals("sqlite")) {
      long c0 = processCpuNanos();
      long t0 = System.nanoTime();
      try (SqliteRunRegistry sqlite = new SqliteRunRegistry(target)) {
        int rows = sqlite.listRuns(List.copyOf(RegistryWorkload.QUERIED), RegistryWorkload.PAGE)
            .size();
        double ms = (System.nanoTime() - t0) / 1e6;
        double cpuMs = (processCpuNanos() - c0) / 1e6;
        System.out.printf(Locale.ROOT, "result ms=%.3f cpuMs=%.3f rows=%d%n", ms, cpuMs, rows);
      }
      return;
    }
    long before = usedHeapAfterGc();
    long c0 = processCpuNanos();
    long t0 = System.nanoTime();
    try (FileLedgerStore store = FileLedgerStore.open(target, options())) {
      RunRegistry registry = CollectionRunRegistry.on(store,
          RegistryOptions.defaults().withPartition(partition));
      List<RunRecord> page = registry.listRuns(RunFilters.any().withStatuses(queried()),
          RegistryWorkload.PAGE);
      double ms = (System.nanoTime() - t0) / 1e6;
      double cpuMs = (processCpuNanos() - c0) / 1e6;
      long held = usedHeapAfterGc() - before;
      double json = 0;
      for (RunRecord run : page) {
        json += Workload.toJson(run).length;
      }
      json /= Math.max(1, page.size());
      // The registry is used after the heap was measured, so that it was reachable then.
      int rows = registry.listRuns(RunFilters.any().withStatuses(queried()),
          RegistryWorkload.PAGE).size();
      System.out.printf(Locale.ROOT, "result ms=%.3f cpuMs=%.3f rows=%d heldBytes=%d"
          + " recordJsonBytes=%.1f%n", ms, cpuMs, rows, held, json);
    }
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
        ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  private static long usedHeapAfterGc() throws InterruptedException {
    var memory = ManagementFactory.getMemoryMXBean();
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(50);
    }
    return memory.getHeapMemoryUsage().getUsed();
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
