package dev.ledger.examples;

import dev.ledger.artifacts.fs.FileArtifactStore;
import dev.ledger.core.fs.FileLedgerStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A worker in a child JVM, started by {@link LocalOrchestrator} with
 * {@code java -cp <same classpath> dev.ledger.examples.WorkerProcess <dir> <plan> <worker>
 * [--hang-in-attempt N]}. It opens its own stores over the directory, prints {@code ready} on
 * standard output, and works until the plan is complete or the orchestrator drains; exit
 * status 0 then, 2 on bad arguments.
 *
 * <p>{@code --hang-in-attempt N} is the instruction to hang: the N-th attempt this worker
 * claims never ends (it stands for a stuck task), so the orchestrator has something to kill
 * whatever the timing. Without it the worker never hangs.
 *
 * <p>The worker exits when its standard input reaches end of file: the orchestrator keeps
 * that pipe open for the child's whole life, so a worker never outlives an orchestrator that
 * died without killing it.
 */
public final class WorkerProcess {
  private WorkerProcess() {}

  /**
   * Entry point; see the class comment for the arguments.
   *
   * @param args {@code <dir> <plan> <worker> [--hang-in-attempt N]}
   * @throws Exception if the stores cannot be opened or the work fails
   */
  public static void main(String[] args) throws Exception {
    int hangIn = 0;
    if (args.length == 5 && args[3].equals("--hang-in-attempt")) {
      hangIn = Integer.parseInt(args[4]);
    } else if (args.length != 3) {
      System.err.println("usage: WorkerProcess <dir> <plan> <worker> [--hang-in-attempt N]");
      System.exit(2);
    }
    Path dir = Path.of(args[0]);
    String plan = args[1];
    String worker = args[2];
    exitWhenParentGoes(System.in);
    TaskWork work = hangingIn(worker, hangIn, new SimulatedWork(true));
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

  /** {@code work}, except that the {@code hangIn}-th attempt (from 1; 0: none) never ends. */
  static TaskWork hangingIn(String worker, int hangIn, TaskWork work) {
    AtomicInteger performed = new AtomicInteger();
    return (state, op) -> {
      if (performed.incrementAndGet() == hangIn) {
        System.err.println(worker + " hangs in " + op.id() + ", as told");
        try {
          new CountDownLatch(1).await(); // until the process is killed
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        throw new IllegalStateException(worker + " interrupted while hanging in " + op.id());
      }
      return work.perform(state, op);
    };
  }

  private static void exitWhenParentGoes(InputStream stdin) {
    Thread watcher = new Thread(() -> {
      try {
        while (stdin.read() >= 0) {
          // the orchestrator sends nothing; only end of file matters
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
