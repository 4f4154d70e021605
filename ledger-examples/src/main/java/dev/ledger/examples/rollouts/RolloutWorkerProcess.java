package dev.ledger.examples.rollouts;

import dev.ledger.collections.patchlog.PatchLogCollectionStore;
import dev.ledger.core.fs.FileLedgerStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;

/**
 * A {@link RolloutWorker} in a child JVM, started by {@link RolloutLifecycle} with
 * {@code java -cp <same classpath> dev.ledger.examples.rollouts.RolloutWorkerProcess <dir>
 * <partition> <worker> <seed> <hang-in-attempt>}. It opens its own store over the directory,
 * prints {@code ready}, one line per claim, and {@code done <attempts>} when every rollout
 * has ended; exit status 0 then, 2 on bad arguments. With a hang-in-attempt n above 0 it
 * prints {@code hangs <rollout> <attempt>} after the first spans of its n-th attempt and
 * waits to be killed. It halts when its standard input ends, so it
 * never outlives the process that started it.
 */
public final class RolloutWorkerProcess {
  private RolloutWorkerProcess() {}

  /**
   * Entry point; see the class comment for the arguments.
   *
   * @param args {@code <dir> <partition> <worker> <seed> <hang-in-attempt>}
   */
  public static void main(String[] args) {
    if (args.length != 5) {
      System.err.println("usage: RolloutWorkerProcess <dir> <partition> <worker> <seed> "
          + "<hang-in-attempt>");
      System.exit(2);
    }
    exitWhenParentGoes();
    try (FileLedgerStore ledgers = FileLedgerStore.open(Path.of(args[0]))) {
      RolloutStore store = new RolloutStore(
          PatchLogCollectionStore.on(ledgers, RolloutStore.SCHEMA), args[1], Clock.systemUTC(),
          () -> {
            throw new IllegalStateException("a worker creates no rollouts or resources");
          });
      System.out.println("ready");
      System.out.flush();
      int attempts = new RolloutWorker(args[2], store, Long.parseLong(args[3]), line -> {
        System.out.println(line);
        System.out.flush();
      }, Integer.parseInt(args[4])).runUntilAllEnded();
      System.out.println("done " + attempts);
      System.out.flush();
    }
  }

  private static void exitWhenParentGoes() {
    Thread watcher = new Thread(() -> {
      try {
        while (System.in.read() >= 0) {
          // the parent sends nothing; only end of file matters
        }
      } catch (IOException e) {
        // treated like end of file
      }
      Runtime.getRuntime().halt(3);
    }, "parent-watcher");
    watcher.setDaemon(true);
    watcher.start();
  }
}
