package dev.ledger.bench;

import dev.ledger.collections.CollectionStore;
import dev.ledger.collections.patchlog.PatchLogCollectionStore;
import dev.ledger.core.Durability;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.fs.FileLedgerStore;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * CPU time and allocation per collections transaction of scenario 12 ("update one document +
 * enqueue one item + dequeue one", {@link CollectionScenario#transaction}) on a file store, on
 * the calling thread: the figure an optimisation of the transaction path is judged by on a
 * loaded machine, where wall-clock rates are noise. The store runs without {@code force}
 * ({@code UNSAFE_NO_SYNC}: the disk's share is SQLite's and ours alike, and this measures what
 * is left), or with it ({@code --sync}). The partition is filled as scenario 12 fills it
 * ({@link CollectionScenario#populate}); each round runs the transaction on random documents
 * of it, and the median of the rounds is printed. With {@code --sqlite}, the same rounds run
 * SQLite's transaction ({@link SqliteCollections}, always {@code synchronous=FULL}) instead,
 * for reference.
 *
 * <pre>
 * java -cp ... dev.ledger.bench.CollectionTxCpu [--docs N] [--transactions N] [--rounds N]
 *     [--sync] [--sqlite] [--dir PATH] [--keep]
 * </pre>
 */
public final class CollectionTxCpu {
  private CollectionTxCpu() {}

  /** One transaction of the probe. */
  private interface Body {
    void run(long attempt) throws Exception;
  }

  /**
   * Runs the probe (flags above) and prints one line per round and the medians.
   *
   * @param args the flags
   * @throws Exception if the store fails
   */
  public static void main(String[] args) throws Exception {
    int docs = 1_000;
    int transactions = 20_000;
    int rounds = 5;
    boolean sync = false;
    boolean sqlite = false;
    boolean keep = false;
    Path parent = Path.of("target");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--docs" -> docs = Integer.parseInt(args[++i]);
        case "--transactions" -> transactions = Integer.parseInt(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--sync" -> sync = true;
        case "--sqlite" -> sqlite = true;
        case "--keep" -> keep = true;
        case "--dir" -> parent = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown flag " + args[i]);
      }
    }
    Files.createDirectories(parent);
    Path dir = Files.createTempDirectory(parent, "collection-tx-cpu");
    LedgerOptions options = LedgerOptions.defaults().withLimits(512 << 20, 1 << 20)
        .withDurability(sync ? Durability.SYNC : Durability.UNSAFE_NO_SYNC);
    double[] cpu = new double[rounds];
    double[] alloc = new double[rounds];
    double[] wall = new double[rounds];
    String what;
    try {
      if (sqlite) {
        what = "SQLite FULL";
        try (SqliteCollections db = new SqliteCollections(dir.resolve("sqlite.db"))) {
          db.populate(docs, 100);
          int n = docs;
          measure(cpu, alloc, wall, transactions, attempt -> db.transaction(
              java.util.concurrent.ThreadLocalRandom.current().nextLong(n), attempt));
        }
      } else {
        what = sync ? "SYNC" : "UNSAFE_NO_SYNC";
        try (FileLedgerStore fill = FileLedgerStore.open(dir.resolve("ledger"),
            options.withDurability(Durability.UNSAFE_NO_SYNC))) {
          CollectionScenario.populate(PatchLogCollectionStore.on(fill, CollectionScenario.SCHEMA),
              "probe", docs);
        }
        try (FileLedgerStore store = FileLedgerStore.open(dir.resolve("ledger"), options)) {
          CollectionStore collections = PatchLogCollectionStore.on(store,
              CollectionScenario.SCHEMA);
          int n = docs;
          measure(cpu, alloc, wall, transactions,
              attempt -> CollectionScenario.transaction(collections, "probe", n, attempt));
        }
      }
    } finally {
      if (keep) {
        System.out.println("kept " + dir);
      } else {
        ScratchFiles.deleteTree(dir);
      }
    }
    System.out.printf("median of %d rounds of %,d transactions (%,d documents, %s): %.1f us"
        + " CPU, %.1f KiB allocated, %.1f us wall per transaction; load average %.2f%n",
        rounds, transactions, docs, what, median(cpu), median(alloc), median(wall),
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
  }

  /** Round 0 warms the JIT up and is not counted; the others fill the arrays. */
  private static void measure(double[] cpu, double[] alloc, double[] wall, int transactions,
      Body body) throws Exception {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long self = Thread.currentThread().getId();
    long attempt = 1;
    for (int round = -1; round < cpu.length; round++) {
      long c0 = threads.getCurrentThreadCpuTime();
      long a0 = threads.getThreadAllocatedBytes(self);
      long w0 = System.nanoTime();
      for (int i = 0; i < transactions; i++) {
        body.run(attempt++);
      }
      long c1 = threads.getCurrentThreadCpuTime();
      long a1 = threads.getThreadAllocatedBytes(self);
      long w1 = System.nanoTime();
      if (round >= 0) {
        cpu[round] = (c1 - c0) / 1e3 / transactions;
        alloc[round] = (a1 - a0) / 1024.0 / transactions;
        wall[round] = (w1 - w0) / 1e3 / transactions;
        System.out.printf("round %d: %.1f us CPU, %.1f KiB allocated, %.1f us wall per"
            + " transaction%n", round + 1, cpu[round], alloc[round], wall[round]);
      }
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
