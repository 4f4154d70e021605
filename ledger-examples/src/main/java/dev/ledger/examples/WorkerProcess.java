package dev.ledger.examples;

import dev.ledger.artifacts.fs.FileArtifactStore;
import dev.ledger.core.fs.FileLedgerStore;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A worker in a child JVM, started by {@link LocalOrchestrator} with
 * {@code java -cp <same classpath> dev.ledger.examples.WorkerProcess <dir> <plan> <worker>
 * <hang-after>}. It opens its own stores over the directory, prints {@code ready} on standard
 * output, and works until the plan is complete or the orchestrator drains. With
 * {@code hang-after} n &gt; 0, its n-th attempt hangs (simulating a stuck task) so the
 * orchestrator can kill it mid-run; 0 never hangs. Exit status 0 when done.
 */
public final class WorkerProcess {
  private WorkerProcess() {}

  /** Entry point; see the class comment for the arguments. */
  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: WorkerProcess <dir> <plan> <worker> <hang-after>");
      System.exit(2);
    }
    Path dir = Path.of(args[0]);
    String plan = args[1];
    String worker = args[2];
    int hangAfter = Integer.parseInt(args[3]);
    TaskWork simulated = new SimulatedWork(true);
    AtomicInteger performed = new AtomicInteger();
    TaskWork work = (state, op) -> {
      if (performed.incrementAndGet() == hangAfter) {
        System.err.println(worker + " hangs on " + op.id());
        try {
          TimeUnit.MINUTES.sleep(5);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
      return simulated.perform(state, op);
    };
    try (FileLedgerStore ledgers = FileLedgerStore.open(dir);
        FileArtifactStore artifacts = FileArtifactStore.open(dir)) {
      Worker w = new Worker(worker,
          new PlanLedger(ledgers.ledger(plan, PlanState.class)), artifacts, work);
      System.out.println("ready");
      System.out.flush();
      w.runUntilDone();
      System.err.println(worker + " done, " + w.conflicts() + " conflicts");
    }
  }
}
