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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The registry's footprint at N runs, each figure taken in a fresh JVM (a child process):
 * the cold open (open the store, the registry and answer the first {@code listRuns} by two
 * statuses, a page of 50) against SQLite opening its file and answering the same query, and
 * the heap after GC that the open registry holds, per run, against the size of a run's JSON.
 * Both sides are filled as scenario 13 fills them ({@link RegistryWorkload}).
 *
 * <pre>
 * java -cp ... dev.ledger.bench.RegistryFootprint [--runs N] [--opens N] [--dir PATH]
 * (a child: --child ledger|sqlite DIR RUNS)
 * </pre>
 */
public final class RegistryFootprint {
  private RegistryFootprint() {}

  /**
   * Fills both stores, then opens each {@code --opens} times in child JVMs and prints the
   * medians; a child is this class with {@code --child ledger|sqlite DIR RUNS}.
   *
   * @param args the flags
   * @throws Exception if a store or a child fails
   */
  public static void main(String[] args) throws Exception {
    if (args.length == 4 && args[0].equals("--child")) {
      child(args[1], Path.of(args[2]), Integer.parseInt(args[3]));
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
        RegistryScenario.populate(registry(store),
            Files.createDirectories(dir.resolve("workspace")), runs);
      }
      double fill = (System.nanoTime() - t0) / 1e9;
      try (SqliteRunRegistry sqlite = new SqliteRunRegistry(dir.resolve("sqlite/runs.db"))) {
        sqlite.populate(runs);
      }
      System.out.printf("filled %,d runs in %.1f s through the registry API (no force)%n",
          runs, fill);
      double[] ledgerMs = new double[opens];
      double[] sqliteMs = new double[opens];
      String heap = "";
      for (int i = 0; i < opens; i++) {
        String[] ledger = spawn("ledger", dir, runs);
        ledgerMs[i] = Double.parseDouble(ledger[0]);
        heap = ledger[1];
        sqliteMs[i] = Double.parseDouble(spawn("sqlite", dir, runs)[0]);
      }
      System.out.printf("cold open + first listRuns at %,d runs, median of %d child JVMs:"
          + " ledger %.1f ms, SQLite %.1f ms (ledger/SQLite time %.2f); %s; load average"
          + " %.2f%n", runs, opens, median(ledgerMs), median(sqliteMs),
          median(ledgerMs) / median(sqliteMs), heap,
          ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
      System.out.printf("partition on disk: %,d bytes (%,.0f per run)%n",
          ScratchFiles.size(dir.resolve("ledger")),
          ScratchFiles.size(dir.resolve("ledger")) / (double) runs);
    } finally {
      ScratchFiles.deleteTree(dir);
    }
  }

  private static LedgerOptions options() {
    // As scenario 13: room for the checkpoint of a large partition.
    return LedgerOptions.defaults().withLimits(512 << 20, 1 << 20);
  }

  private static RunRegistry registry(FileLedgerStore store) {
    return CollectionRunRegistry.on(store, RegistryOptions.defaults().withPartition(
        "registry"));
  }

  private static Set<RunStatus> queried() {
    Set<RunStatus> statuses = EnumSet.noneOf(RunStatus.class);
    for (String status : RegistryWorkload.QUERIED) {
      statuses.add(RunStatus.of(status));
    }
    return statuses;
  }

  /** Runs a child; its output's first line: milliseconds, then a free-text line. */
  private static String[] spawn(String kind, Path dir, int runs) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        RegistryFootprint.class.getName(), "--child", kind, dir.toString(),
        Integer.toString(runs))
        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (process.waitFor() != 0) {
      throw new IllegalStateException(kind + " child failed: " + out);
    }
    String[] lines = out.strip().split("\n");
    return lines.length > 1 ? lines : new String[] {lines[0], ""};
  }

  private static void child(String kind, Path dir, int runs) throws Exception {
    if (kind.equals("sqlite")) {
      long t0 = System.nanoTime();
      try (SqliteRunRegistry sqlite = new SqliteRunRegistry(dir.resolve("sqlite/runs.db"))) {
        int n = sqlite.listRuns(List.copyOf(RegistryWorkload.QUERIED), RegistryWorkload.PAGE)
            .size();
        System.out.println((System.nanoTime() - t0) / 1e6);
        System.out.println("sqlite rows " + n);
      }
      return;
    }
    var memory = ManagementFactory.getMemoryMXBean();
    gc();
    long before = memory.getHeapMemoryUsage().getUsed();
    long t0 = System.nanoTime();
    try (FileLedgerStore store = FileLedgerStore.open(dir.resolve("ledger"), options())) {
      RunRegistry registry = registry(store);
      List<RunRecord> page = registry.listRuns(RunFilters.any().withStatuses(queried()),
          RegistryWorkload.PAGE);
      double ms = (System.nanoTime() - t0) / 1e6;
      gc();
      long held = memory.getHeapMemoryUsage().getUsed() - before;
      List<Integer> sizes = new ArrayList<>();
      for (RunRecord run : page) {
        sizes.add(Workload.toJson(run).length);
      }
      double json = sizes.stream().mapToInt(Integer::intValue).average().orElse(0);
      System.out.println(ms);
      System.out.printf("heap after GC held by the open registry: %,d bytes for %,d runs"
          + " (%,.0f per run; a run record as JSON ~%,.0f bytes)%n", held, runs,
          held / (double) runs, json);
    }
  }

  private static void gc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100);
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

}
