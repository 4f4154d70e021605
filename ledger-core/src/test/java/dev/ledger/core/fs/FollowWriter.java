package dev.ledger.core.fs;

import dev.ledger.core.Change;
import dev.ledger.core.Ledger;
import dev.ledger.core.Versioned;
import dev.ledger.testing.base.ChildJvm;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Child main for {@link FileLedgerFollowTest} and {@link FollowLatency}: opens the store,
 * prints {@code READY}, waits for {@code GO} on stdin, then increments the counter ledger
 * {@code count} times through {@link Ledger#update}, printing {@code COMMITTED <sequence>
 * <System.nanoTime() after commit returned> <System.nanoTime() before it was called>} after each, pausing {@code pauseMicros} between
 * commits (0: none); prints {@code DONE} and exits 0 (1 on any failure, stack trace on stderr).
 *
 * <p>Arguments: store directory, root id, writer name, count, pauseMicros.
 */
public final class FollowWriter {
  private FollowWriter() {}

  public static void main(String[] args) throws Exception {
    Path base = Path.of(args[0]);
    String root = args[1];
    String writer = args[2];
    int count = Integer.parseInt(args[3]);
    long pauseMicros = Long.parseLong(args[4]);
    try (FileLedgerStore store = FileLedgerStore.open(base, FileLedgerMultiProcessTest.options())) {
      Ledger<Counter> ledger = store.ledger(root, Counter.class);
      System.out.println("READY");
      System.out.flush();
      ChildJvm.awaitFromParent("GO");
      ChildJvm.exitWhenParentGoes();
      for (int step = 0; step < count; step++) {
        var event = Counter.incremented(writer, step);
        long called = System.nanoTime();
        Versioned<Counter> after = ledger.update(c -> Change.to(c.increment(), event));
        long returned = System.nanoTime();
        // Count starts at 0 at revision 1 without an event: the increment's sequence is the count.
        System.out.println("COMMITTED " + after.state().count() + " " + returned + " " + called);
        System.out.flush();
        if (pauseMicros > 0) {
          TimeUnit.MICROSECONDS.sleep(pauseMicros);
        }
      }
    } catch (Throwable e) {
      e.printStackTrace();
      System.exit(1);
    }
    System.out.println("DONE");
    System.out.flush();
  }
}
