package dev.ledger.core.fs;

import dev.ledger.core.Change;
import dev.ledger.core.Ledger;
import dev.ledger.testing.base.ChildJvm;
import java.nio.file.Path;

/**
 * Child main for {@link FileLedgerMultiProcessTest}: opens the store, prints {@code READY},
 * waits for {@code GO} on stdin, increments the counter ledger {@code count} times through
 * {@link Ledger#update}, prints {@code DONE} and exits 0 (1 on any failure, with the stack
 * trace on stderr).
 *
 * <p>Arguments: store directory, root id, writer name, count.
 */
public final class UpdateWorker {
  private UpdateWorker() {}

  public static void main(String[] args) throws Exception {
    Path base = Path.of(args[0]);
    String root = args[1];
    String writer = args[2];
    int count = Integer.parseInt(args[3]);
    try (FileLedgerStore store = FileLedgerStore.open(base, FileLedgerMultiProcessTest.options())) {
      Ledger<Counter> ledger = store.ledger(root, Counter.class);
      System.out.println("READY");
      System.out.flush();
      ChildJvm.awaitFromParent("GO");
      ChildJvm.exitWhenParentGoes();
      for (int step = 0; step < count; step++) {
        var event = Counter.incremented(writer, step);
        ledger.update(c -> Change.to(c.increment(), event));
      }
    } catch (Throwable e) {
      e.printStackTrace();
      System.exit(1);
    }
    System.out.println("DONE");
    System.out.flush();
  }
}
