package dev.ledger.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.collections.CollectionStore;
import dev.ledger.collections.patchlog.PatchLogCollectionStore;
import dev.ledger.core.Durability;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.core.spi.LoggedCommit;
import dev.ledger.core.spi.PatchLog;
import dev.ledger.core.spi.StoredState;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * CPU time of the cold open of scenario 12's large partition ({@code CollectionScenario
 * .coldOpen}: a read-only store, a collection store on it, the first read) against Jackson's
 * {@code readTree} of the same documents from one file, in one JVM, with the open split into
 * its phases so that an optimisation of one of them is judged by it:
 *
 * <ul>
 *   <li>{@code checkpoint}: the patch log's {@code checkpoint()}, the read and parse of
 *       {@code state.json};
 *   <li>{@code journal}: decoding the journal after the checkpoint ({@code patchesAfter} of
 *       its revision, each commit taken and dropped);
 *   <li>{@code open}: the whole cold open and first read, which does both of the above (the
 *       journal on a second thread) plus building the view and folding the journal into it;
 *   <li>{@code jackson}: {@code readTree} of a file of the same documents, the target's
 *       reference.
 * </ul>
 *
 * Each figure is the process's CPU time (all threads, GC and JIT included), the wall time
 * and the calling thread's CPU time (for the open: the checkpoint, building the view and
 * folding, without the journal's decoding on other threads and without GC); round 0 warms up and is not counted, the medians of the other rounds are printed.
 * The partition is built once in {@code --dir} (kept and reused by later runs): filled as
 * scenario 12 fills it ({@link CollectionScenario#populate}), then the benchmark's
 * transaction until one whole checkpoint cycle has passed, then half a cycle more, so that
 * the open replays the journal a partition holds on average (as the scenario does).
 *
 * <pre>
 * java -cp ... dev.ledger.bench.ColdOpenCpu --dir PATH [--docs N] [--rounds N]
 *     [--only open|checkpoint|journal|jackson]
 * </pre>
 */
public final class ColdOpenCpu {
  private static final String PARTITION = "large";
  /** Where a step's timed part starts, if not at its start; -1 if it is. */
  private static long phaseCpu;
  private static long phaseWall;
  private static long phaseOwn;

  private ColdOpenCpu() {}

  /** One measured step; returns a count that is checked. */
  private interface Step {
    long run() throws Exception;
  }

  /**
   * Runs the probe (flags above) and prints one line per round and the medians.
   *
   * @param args the flags
   * @throws Exception if the store fails
   */
  public static void main(String[] args) throws Exception {
    int docs = 100_000;
    int rounds = 5;
    Path dir = null;
    String only = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--docs" -> docs = Integer.parseInt(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--dir" -> dir = Path.of(args[++i]);
        case "--only" -> only = args[++i];
        default -> throw new IllegalArgumentException("unknown flag " + args[i]);
      }
    }
    if (dir == null) {
      throw new IllegalArgumentException("--dir is required (the partition is kept there)");
    }
    Path storeDir = dir.resolve("ledger-" + docs);
    Path json = dir.resolve("docs-" + docs + ".json");
    build(storeDir, json, docs);
    int n = docs;
    List<String> names = List.of("checkpoint", "journal", "open", "jackson");
    List<Step> steps = List.of(
        () -> {
          try (FileLedgerStore store = FileLedgerStore.openReadOnly(storeDir)) {
            StoredState state = store.patchLog(PARTITION).checkpoint().orElseThrow();
            return state.state().get("c").get("rollouts").get("docs").size();
          }
        },
        () -> {
          try (FileLedgerStore store = FileLedgerStore.openReadOnly(storeDir)) {
            PatchLog log = store.patchLog(PARTITION);
            long revision = log.checkpoint().orElseThrow().revision();
            // The checkpoint's read is not this phase's: timed from here (as the open does,
            // the journal is read after the checkpoint, which marks where it starts).
            phaseCpu = processCpuNanos();
            phaseWall = System.nanoTime();
            phaseOwn = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
            try (Stream<LoggedCommit> commits = log.patchesAfter(revision)) {
              return commits.count();
            }
          }
        },
        () -> {
          try (FileLedgerStore store = FileLedgerStore.openReadOnly(storeDir)) {
            CollectionStore collections = PatchLogCollectionStore.on(store,
                CollectionScenario.SCHEMA);
            return collections.read(PARTITION,
                v -> v.collection("rollouts", CollectionWorkload.BenchDoc.class).size());
          }
        },
        () -> {
          JsonNode tree = Workload.JSON.readTree(json.toFile());
          return tree.size();
        });
    double[][] cpu = new double[steps.size()][rounds];
    double[][] wall = new double[steps.size()][rounds];
    double[][] own = new double[steps.size()][rounds];
    java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long[] counts = new long[steps.size()];
    for (int round = -1; round < rounds; round++) {
      StringBuilder line = new StringBuilder(round < 0 ? "warm-up:" : "round " + (round + 1)
          + ":");
      for (int s = 0; s < steps.size(); s++) {
        if (only != null && !names.get(s).equals(only) && !(only.equals("open")
            && names.get(s).equals("jackson"))) {
          continue;
        }
        System.gc();
        phaseCpu = -1;
        long t0 = threads.getCurrentThreadCpuTime();
        long c0 = processCpuNanos();
        long w0 = System.nanoTime();
        long count = steps.get(s).run();
        if (phaseCpu >= 0) {
          c0 = phaseCpu;
          w0 = phaseWall;
          t0 = phaseOwn;
        }
        long c1 = processCpuNanos();
        long w1 = System.nanoTime();
        long t1 = threads.getCurrentThreadCpuTime();
        if (counts[s] != 0 && counts[s] != count) {
          throw new IllegalStateException(names.get(s) + " counted " + count + ", before "
              + counts[s]);
        }
        counts[s] = count;
        if (round >= 0) {
          cpu[s][round] = (c1 - c0) / 1e6;
          wall[s][round] = (w1 - w0) / 1e6;
          own[s][round] = (t1 - t0) / 1e6;
        }
        line.append(String.format(" %s %.0f ms CPU / %.0f ms wall;", names.get(s),
            (c1 - c0) / 1e6, (w1 - w0) / 1e6));
      }
      System.out.println(line);
    }
    if (counts[2] != 0 && counts[2] != docs || counts[3] != 0 && counts[3] != n) {
      throw new IllegalStateException("open saw " + counts[2] + " documents, Jackson "
          + counts[3] + ", expected " + docs);
    }
    System.out.printf("medians of %d rounds, %,d documents, %,d journal commits after the"
        + " checkpoint:%n", rounds, docs, counts[1]);
    for (int s = 0; s < steps.size(); s++) {
      if (counts[s] != 0 || s == 1 && only == null) {
        System.out.printf("  %-10s %7.0f ms CPU %7.0f ms wall %7.0f ms calling thread's CPU%n",
            names.get(s), median(cpu[s]), median(wall[s]), median(own[s]));
      }
    }
    if (counts[2] != 0 && counts[3] != 0) {
      System.out.printf("  open / jackson: %.2fx CPU, %.2fx wall%n",
          median(cpu[2]) / median(cpu[3]), median(wall[2]) / median(wall[3]));
    }
    System.out.printf("load average %.2f%n",
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
  }

  /** Builds the partition and the documents' file unless a previous run left them. */
  private static void build(Path storeDir, Path json, int docs) throws Exception {
    Path done = storeDir.resolve("built");
    if (Files.exists(done) && Files.exists(json)) {
      return;
    }
    ScratchFiles.deleteTree(storeDir);
    Files.createDirectories(storeDir);
    LedgerOptions fast = LedgerOptions.defaults().withLimits(512 << 20, 1 << 20)
        .withDurability(Durability.UNSAFE_NO_SYNC);
    long t0 = System.nanoTime();
    try (FileLedgerStore store = FileLedgerStore.open(storeDir, fast)) {
      CollectionStore collections = PatchLogCollectionStore.on(store, CollectionScenario.SCHEMA);
      CollectionScenario.populate(collections, PARTITION, docs);
      AtomicLong attempt = new AtomicLong(10_000_000);
      PatchLog log = store.patchLog(PARTITION);
      untilCheckpoint(log, collections, docs, attempt);
      long cycle = untilCheckpoint(log, collections, docs, attempt);
      for (long i = 0; i < cycle / 2; i++) {
        CollectionScenario.transaction(collections, PARTITION, docs, attempt.incrementAndGet());
      }
      System.out.printf("built %,d documents, a checkpoint cycle of %,d transactions and half"
          + " of one more in %.0f s%n", docs, cycle, (System.nanoTime() - t0) / 1e9);
    }
    try (var out = Files.newOutputStream(json)) {
      List<CollectionWorkload.BenchDoc> all = new ArrayList<>(docs);
      for (int i = 0; i < docs; i++) {
        all.add(CollectionWorkload.doc(i, 0));
      }
      Workload.JSON.writeValue(out, all);
    }
    Files.createFile(done);
  }

  private static long untilCheckpoint(PatchLog log, CollectionStore collections, int docs,
      AtomicLong attempt) {
    long max = 20L * docs + 100_000;
    long since = log.journalBytesSinceCheckpoint();
    for (long n = 1; n <= max; n++) {
      CollectionScenario.transaction(collections, PARTITION, docs, attempt.incrementAndGet());
      long now = log.journalBytesSinceCheckpoint();
      if (now < since) {
        return n;
      }
      since = now;
    }
    throw new IllegalStateException("no checkpoint after " + max + " transactions");
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
        ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
