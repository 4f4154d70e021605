package dev.ledger.core.fs;

import dev.ledger.core.RepairResult;
import dev.ledger.testing.base.ChildJvm;
import java.nio.file.Path;

/**
 * Child main for {@link RepairCrashTest}: repairs ledgers {@code r-0}, {@code r-1}, … of a
 * {@link DamagedLedgers} store in turn until it is killed, printing {@code REPAIRING r-i}
 * before and {@code REPAIRED r-i <checkpoint rewritten> <entries written>} after each,
 * flushed, so the parent knows exactly which repairs returned.
 *
 * <p>Arguments: store directory, ledger count.
 */
public final class RepairChild {
  private RepairChild() {}

  public static void main(String[] args) {
    ChildJvm.exitWhenParentGoes();
    int count = Integer.parseInt(args[1]);
    try (FileLedgerStore store = FileLedgerStore.open(Path.of(args[0]),
        AckingCommitter.options())) {
      for (int i = 0; i < count; i++) {
        String root = DamagedLedgers.root(i);
        say("REPAIRING " + root);
        RepairResult result = store.repair(root);
        say("REPAIRED " + root + " " + result.checkpointRewritten() + " "
            + result.commandEntriesWritten());
      }
      say("END");
    } catch (RuntimeException | Error e) {
      e.printStackTrace();
      System.exit(1);
    }
  }

  private static void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
