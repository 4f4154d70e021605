package dev.ledger.examples;

import dev.ledger.artifacts.fs.FileArtifactStore;
import dev.ledger.core.Ledger;
import dev.ledger.core.fs.FileLedgerStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * The process-spawning shell around the orchestrator core: runs one plan in two sessions over
 * one directory.
 *
 * <p><b>Session 1.</b> Creates the plan, starts two worker processes (child JVMs with this
 * JVM's {@code java} and class path) and worker threads. Worker process {@code p1} hangs on
 * its second attempt and is killed with SIGKILL while that attempt runs. At half the plan, the
 * orchestrator drains: running operations become {@code stop_requested}; the live workers
 * cancel theirs and exit, {@code p1}'s stays as it is. <b>Session 2</b> (a restart: fresh
 * store instances over the same directory) recovers the operations session 1 left pending,
 * running or stop-requested, then finishes the plan with a new worker process and threads.
 */
public final class LocalOrchestrator {
  private static final long PHASE_DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(40);

  /**
   * What to run.
   *
   * @param dir the store directory (ledger and artifacts)
   * @param planId the plan's id, also the ledger's root id
   * @param seed the seed of the plan and of its failures
   * @param tasks the number of tasks
   * @param maxAttempts failed attempts after which a task fails for good
   * @param threads worker threads per session (besides the worker processes)
   */
  public record Config(Path dir, String planId, long seed, int tasks, int maxAttempts,
      int threads) {}

  /**
   * What happened.
   *
   * @param summary the final numbers
   * @param killed what the killed process was doing, or null if it was not killed
   * @param stopRequested operations the drain asked to stop
   * @param recovered operations session 2 recovered, as found
   * @param outcomes for each recovered operation, how it ended
   */
  public record Report(RunSummary summary, String killed, List<String> stopRequested,
      List<Operation> recovered, Map<String, String> outcomes) {}

  private final Config config;
  private final Progress progress;
  private final Path logs;
  private final List<Process> children = new ArrayList<>();
  private final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();

  /** An orchestrator for {@code config}, reporting on {@code progress}. */
  public LocalOrchestrator(Config config, Progress progress) {
    this.config = config;
    this.progress = progress;
    this.logs = config.dir().resolveSibling(config.dir().getFileName() + "-logs");
  }

  /** Runs both sessions; child processes still alive on failure are killed. */
  public Report run() throws IOException, InterruptedException {
    Files.createDirectories(logs);
    try {
      String[] killed = new String[1];
      List<String> stopped = sessionOne(killed);
      return sessionTwo(killed[0], stopped);
    } finally {
      children.forEach(Process::destroyForcibly);
    }
  }

  private List<String> sessionOne(String[] killed) throws IOException, InterruptedException {
    try (FileLedgerStore store = FileLedgerStore.open(config.dir());
        FileArtifactStore artifacts = FileArtifactStore.open(config.dir())) {
      Ledger<PlanState> ledger = store.ledger(config.planId(), PlanState.class);
      Orchestration.create(ledger, Plans.generate(config.planId(), config.seed(), config.tasks(),
          config.maxAttempts()));
      progress.note("session 1: plan " + config.planId() + ", " + config.tasks()
          + " tasks; worker processes p1 and p2, " + config.threads() + " worker threads");
      Process victim = spawn("p1", 2);
      Process other = spawn("p2", 0);
      List<Thread> threads = startThreads(store, artifacts, 1);
      List<String> stopped = new ArrayList<>();
      boolean drained = false;
      long deadline = System.nanoTime() + PHASE_DEADLINE_NANOS;
      while (true) {
        PlanState s = ledger.load().state();
        progress.show("session 1", s);
        if (killed[0] == null && victim.isAlive()) {
          Optional<Operation> hung = s.operations().values().stream()
              .filter(o -> o.status() == OperationStatus.RUNNING && "p1".equals(o.owner()))
              .filter(o -> s.countOperations(x -> "p1".equals(x.owner())) >= 2)
              .findFirst();
          if (hung.isPresent()) {
            victim.destroyForcibly().waitFor();
            killed[0] = "worker process p1 (pid " + victim.pid() + ") killed with SIGKILL while"
                + " it ran " + hung.get().id();
            progress.note(killed[0]);
          }
        }
        boolean victimGone = killed[0] != null || !victim.isAlive();
        long done = s.countTasks(t -> t.status().terminal());
        if (!drained && victimGone && done * 2 >= s.tasks().size()) {
          stopped.addAll(Orchestration.requestDrain(new PlanLedger(ledger, true)));
          drained = true;
          progress.note("draining at " + done + "/" + s.tasks().size()
              + " tasks; stop requested for " + stopped);
        }
        if ((drained || s.complete()) && threads.stream().noneMatch(Thread::isAlive)
            && !other.isAlive() && victimGone) {
          break;
        }
        checkProgress(deadline);
        TimeUnit.MILLISECONDS.sleep(10);
      }
      joinAll(threads, other);
      PlanState end = ledger.load().state();
      progress.show("session 1", end);
      progress.note("session 1 stopped, leaving " + describe(end.recoverable()));
      return stopped;
    }
  }

  private Report sessionTwo(String killed, List<String> stopped)
      throws IOException, InterruptedException {
    // A restart: fresh store instances over the same directory.
    try (FileLedgerStore store = FileLedgerStore.open(config.dir());
        FileArtifactStore artifacts = FileArtifactStore.open(config.dir())) {
      Ledger<PlanState> ledger = store.ledger(config.planId(), PlanState.class);
      List<Operation> recovered = Orchestration.recover(new PlanLedger(ledger, true));
      progress.note("session 2: restarted on fresh stores; recovering " + describe(recovered));
      Process worker = spawn("p3", 0);
      List<Thread> threads = startThreads(store, artifacts, config.threads() + 1);
      long deadline = System.nanoTime() + PHASE_DEADLINE_NANOS;
      PlanState s;
      while (!((s = ledger.load().state()).complete()
          && threads.stream().noneMatch(Thread::isAlive) && !worker.isAlive())) {
        progress.show("session 2", s);
        checkProgress(deadline);
        TimeUnit.MILLISECONDS.sleep(10);
      }
      joinAll(threads, worker);
      progress.show("session 2", s);
      progress.end();
      Map<String, String> outcomes = new TreeMap<>();
      for (Operation op : recovered) {
        Operation now = s.operations().get(op.id());
        outcomes.put(op.id(), op.status().wireName() + " -> " + now.status().wireName()
            + (now.status() == OperationStatus.CANCELLED ? " (task " + op.task() + " "
                + s.task(op.task()).status().wireName() + " in attempt "
                + s.task(op.task()).attempts() + ")" : ""));
      }
      return new Report(RunSummary.of(ledger.load(), artifacts), killed, stopped, recovered,
          outcomes);
    }
  }

  private static String describe(List<Operation> ops) {
    if (ops.isEmpty()) {
      return "no recoverable operations";
    }
    List<String> parts = new ArrayList<>();
    ops.forEach(o -> parts.add(o.id() + " (" + o.status().wireName()
        + (o.owner() == null ? "" : ", " + o.owner()) + ")"));
    return ops.size() + " recoverable operations: " + String.join(", ", parts);
  }

  private List<Thread> startThreads(FileLedgerStore store, FileArtifactStore artifacts,
      int first) {
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < config.threads(); i++) {
      String name = "t" + (first + i);
      Worker worker = new Worker(name,
          new PlanLedger(store.ledger(config.planId(), PlanState.class), true), artifacts,
          new SimulatedWork(true));
      Thread thread = new Thread(() -> {
        try {
          worker.runUntilDone();
        } catch (Throwable e) {
          failures.add(e);
        }
      }, "worker-" + name);
      thread.start();
      threads.add(thread);
    }
    return threads;
  }

  private Process spawn(String worker, int hangAfter) throws IOException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    ProcessBuilder builder = new ProcessBuilder(java.toString(), "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1", "-Dslf4j.internal.verbosity=ERROR",
        "-cp", System.getProperty("java.class.path"), WorkerProcess.class.getName(),
        config.dir().toString(), config.planId(), worker, Integer.toString(hangAfter));
    builder.redirectError(ProcessBuilder.Redirect.to(logs.resolve(worker + ".log").toFile()));
    Process process = builder.start();
    children.add(process);
    BufferedReader out = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    if (!"ready".equals(out.readLine())) {
      throw new IllegalStateException("worker process " + worker + " did not start; see "
          + logs.resolve(worker + ".log"));
    }
    return process;
  }

  private void joinAll(List<Thread> threads, Process process) throws InterruptedException {
    for (Thread t : threads) {
      t.join();
    }
    checkFailures();
    if (process.waitFor() != 0) {
      throw new IllegalStateException("worker process exited with " + process.exitValue()
          + "; see " + logs);
    }
  }

  private void checkProgress(long deadline) {
    checkFailures();
    if (System.nanoTime() > deadline) {
      throw new IllegalStateException("session did not finish in time; worker logs in " + logs);
    }
  }

  private void checkFailures() {
    Throwable failure = failures.peek();
    if (failure != null) {
      throw new IllegalStateException("a worker thread failed: " + failure, failure);
    }
  }
}
