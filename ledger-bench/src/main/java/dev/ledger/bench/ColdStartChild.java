package dev.ledger.bench;

import dev.ledger.core.Durability;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.fs.FileLedgerStore;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Child JVM of the cold-start measurement: one contender of scenario 1, made in a fresh JVM
 * on a fresh directory, performs its first {@code N} commits, timed from the first commit's
 * call (creating the contender is not counted, its first commit is), and prints one
 * {@code result ...} line: commits, wall nanos, and the committing thread's CPU nanos.
 */
public final class ColdStartChild {
  private ColdStartChild() {}

  /** Arguments: contender ({@link ColdStartScenario#KINDS}), directory, commits. */
  public static void main(String[] args) throws Exception {
    String kind = args[0];
    Path dir = Path.of(args[1]);
    int commits = Integer.parseInt(args[2]);
    Files.createDirectories(dir);
    ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
    try (CommitTarget target = target(kind, dir)) {
      long c0 = cpu.getCurrentThreadCpuTime();
      long t0 = System.nanoTime();
      for (int i = 0; i < commits; i++) {
        target.commit();
      }
      long nanos = System.nanoTime() - t0;
      long cpuNanos = cpu.getCurrentThreadCpuTime() - c0;
      System.out.println("result commits=" + commits + " nanos=" + nanos + " cpuNanos="
          + cpuNanos);
    }
  }

  private static CommitTarget target(String kind, Path dir) throws Exception {
    return switch (kind) {
      case "ledger-sync" -> new LedgerTarget(dir.resolve("ledger"), "run");
      case "ledger-no-sync" -> new LedgerTarget(FileLedgerStore.open(dir.resolve("ledger"),
          LedgerOptions.defaults().withDurability(Durability.UNSAFE_NO_SYNC)), "run", true);
      case "ledger-64k-small" -> new LargeLedgerTarget(dir.resolve("large"), false);
      case "floor" -> new FloorAppend(dir.resolve("floor/preallocated"), true);
      case "sqlite-full" -> new SqliteTarget(dir.resolve("full.db"), "FULL");
      case "json-append" -> new JsonAppendTarget(dir.resolve("json/lines"));
      default -> throw new IllegalArgumentException("unknown contender " + kind);
    };
  }
}
