package dev.ledger.bench;

import dev.ledger.core.Durability;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.registry.NewRun;
import dev.ledger.registry.RegistryOptions;
import dev.ledger.registry.RunOwner;
import dev.ledger.registry.RunRegistry;
import dev.ledger.registry.RunStatus;
import dev.ledger.registry.TransitionDetails;
import dev.ledger.registry.collections.CollectionRunRegistry;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * CPU time and allocation per {@code transitionRun} of the registry on a file store, on the
 * calling thread: the figure an optimisation of the transaction path is judged by on a loaded
 * machine, where wall-clock rates are noise. The store runs without {@code force}
 * ({@code UNSAFE_NO_SYNC}: the disk's share is SQLite's and ours alike, and this measures what
 * is left), or with it ({@code --sync}). Each round walks fresh runs through
 * {@link RegistryWorkload#TIMED_PATH} as scenario 13 does; the median of the rounds is printed.
 *
 * <pre>
 * java -cp ... dev.ledger.bench.TransitionCpu [--runs N] [--transitions N] [--rounds N]
 *     [--sync] [--dir PATH] [--keep]
 * </pre>
 */
public final class TransitionCpu {
  private static final RunOwner OWNER = RunOwner.local("bench", "bench-1");

  private TransitionCpu() {}

  /**
   * Runs the probe (flags above) and prints one line per round and the medians.
   *
   * @param args the flags
   * @throws Exception if the store fails
   */
  public static void main(String[] args) throws Exception {
    int runs = 1_000;
    int transitions = 20_000;
    int rounds = 5;
    boolean sync = false;
    boolean keep = false;
    Path parent = Path.of("target");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--runs" -> runs = Integer.parseInt(args[++i]);
        case "--transitions" -> transitions = Integer.parseInt(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--sync" -> sync = true;
        case "--keep" -> keep = true;
        case "--dir" -> parent = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown flag " + args[i]);
      }
    }
    Files.createDirectories(parent);
    Path dir = Files.createTempDirectory(parent, "transition-cpu");
    Path workspace = Files.createDirectories(dir.resolve("workspace"));
    LedgerOptions options = LedgerOptions.defaults().withLimits(512 << 20, 1 << 20)
        .withDurability(sync ? Durability.SYNC : Durability.UNSAFE_NO_SYNC);
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long self = Thread.currentThread().getId();
    int perRun = RegistryWorkload.TIMED_PATH.size();
    double[] cpu = new double[rounds];
    double[] alloc = new double[rounds];
    double[] wall = new double[rounds];
    try (FileLedgerStore store = FileLedgerStore.open(dir.resolve("ledger"), options)) {
      RunRegistry registry = CollectionRunRegistry.on(store,
          RegistryOptions.defaults().withPartition("probe"));
      registry.registerWorkspace(RegistryWorkload.WORKSPACE, workspace);
      long next = 0;
      for (; next < runs; next++) {
        registry.allocateRun(newRun(next));
      }
      // Round 0 warms the JIT up and is not counted.
      for (int round = -1; round < rounds; round++) {
        List<String> pool = new ArrayList<>();
        for (int i = 0; i < transitions / perRun + 1; i++) {
          pool.add(registry.allocateRun(newRun(next++)).id());
        }
        long c0 = threads.getCurrentThreadCpuTime();
        long a0 = threads.getThreadAllocatedBytes(self);
        long w0 = System.nanoTime();
        int done = 0;
        for (String id : pool) {
          long revision = 1;
          for (String to : RegistryWorkload.TIMED_PATH) {
            if (done == transitions) {
              break;
            }
            revision = registry.transitionRun(id, RunStatus.of(to), revision,
                TransitionDetails.none()).revision();
            done++;
          }
        }
        long c1 = threads.getCurrentThreadCpuTime();
        long a1 = threads.getThreadAllocatedBytes(self);
        long w1 = System.nanoTime();
        if (round >= 0) {
          cpu[round] = (c1 - c0) / 1e3 / transitions;
          alloc[round] = (a1 - a0) / 1024.0 / transitions;
          wall[round] = (w1 - w0) / 1e3 / transitions;
          System.out.printf("round %d: %.1f us CPU, %.1f KiB allocated, %.1f us wall per"
              + " transition%n", round + 1, cpu[round], alloc[round], wall[round]);
        }
      }
    } finally {
      if (keep) {
        System.out.println("kept " + dir);
      } else {
        ScratchFiles.deleteTree(dir);
      }
    }
    System.out.printf("median of %d rounds of %,d transitions (%,d runs before, %s): %.1f us"
        + " CPU, %.1f KiB allocated, %.1f us wall per transition; load average %.2f%n",
        rounds, transitions, runs, sync ? "SYNC" : "UNSAFE_NO_SYNC", median(cpu),
        median(alloc), median(wall),
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
  }

  private static NewRun newRun(long i) {
    return NewRun.builder(RegistryWorkload.WORKSPACE, RegistryWorkload.externalId(i))
        .binding(RegistryWorkload.binding(i))
        .pipeline(RegistryWorkload.pipeline(i))
        .workflow("main")
        .planChecksum(RegistryWorkload.checksum(i))
        .request(Workload.JSON.valueToTree(RegistryWorkload.request(i)))
        .commandArgv(RegistryWorkload.argv(i))
        .owner(OWNER)
        .build();
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
