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
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * The process-spawning shell around the orchestrator core: runs one plan in two sessions over
 * one directory.
 *
 * <p><b>Session 1.</b> Creates the plan, starts two worker processes (child JVMs with this
 * JVM's {@code java} and class path) and worker threads. Worker process {@code p1} hangs in
 * its second attempt and is killed with SIGKILL while that attempt runs; {@code p2} hangs in
 * its fourth. When {@code p2} hangs (or at three quarters of the plan), the orchestrator
 * drains: the running operations of live workers become {@code stop_requested}; the threads
 * cancel theirs and exit; {@code p2} does not answer within the grace period and is killed
 * too. {@code p1}'s operation stays {@code running} (the orchestrator knows nobody is there
 * to ask).
 *
 * <p><b>Session 2</b> (a restart: fresh store instances over the same directory) recovers
 * what session 1 left pending, running or stop-requested, then finishes the plan with a new
 * worker process and new threads.
 */
public final class LocalOrchestrator {
  private static final long PHASE_DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(40);
  private static final long STOP_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

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
   * @param kills the worker processes killed, and what they were doing
   * @param stopRequested operations the drain asked to stop
   * @param recovered operations session 2 recovered, as found
   * @param outcomes for each recovered operation (by id), how it ended
   */
  public record Report(RunSummary summary, List<String> kills, List<String> stopRequested,
      List<Operation> recovered, Map<String, OperationStatus> outcomes) {}

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
      List<String> kills = new ArrayList<>();
      List<String> stopped = sessionOne(kills);
      return sessionTwo(kills, stopped);
    } finally {
      children.forEach(Process::destroyForcibly);
    }
  }

  private List<String> sessionOne(List<String> kills) throws IOException, InterruptedException {
    boolean otherKilled = false;
    try (FileLedgerStore store = FileLedgerStore.open(config.dir());
        FileArtifactStore artifacts = FileArtifactStore.open(config.dir())) {
      Ledger<PlanState> ledger = store.ledger(config.planId(), PlanState.class);
      Orchestration.create(ledger, Plans.generate(config.planId(), config.seed(), config.tasks(),
          config.maxAttempts()));
      progress.note("session 1: plan " + config.planId() + ", " + config.tasks()
          + " tasks; worker processes p1 and p2, " + config.threads() + " worker threads");
      Process victim = spawn("p1", 2);
      Process other = spawn("p2", 4);
      List<Thread> threads = startThreads(store, artifacts, 1);
      List<String> stopped = new ArrayList<>();
      long drainedAt = 0;
      long deadline = System.nanoTime() + PHASE_DEADLINE_NANOS;
      while (true) {
        PlanState s = ledger.load().state();
        progress.show("session 1", s);
        if (kills.isEmpty() && victim.isAlive()) {
          Optional<Operation> hung = hung(s, "p1", 2);
          if (hung.isPresent()) {
            victim.destroyForcibly().waitFor();
            kills.add("worker process p1 (pid " + victim.pid() + ") killed with SIGKILL while"
                + " it ran " + hung.get().id());
            progress.note(kills.get(0));
          }
        }
        boolean victimGone = !kills.isEmpty() || !victim.isAlive();
        long done = s.countTasks(t -> t.status().terminal());
        if (drainedAt == 0 && victimGone
            && (hung(s, "p2", 4).isPresent() || done * 4 >= s.tasks().size() * 3)) {
          // The orchestrator knows p1 is dead: nobody to ask, its operation stays running.
          stopped.addAll(Orchestration.requestDrain(new PlanLedger(ledger), Set.of("p1")));
          drainedAt = System.nanoTime();
          progress.note("draining at " + done + "/" + s.tasks().size()
              + " tasks; stop requested for " + stopped);
        }
        if (drainedAt != 0 && other.isAlive()
            && System.nanoTime() - drainedAt > STOP_GRACE_NANOS) {
          other.destroyForcibly().waitFor();
          kills.add("worker process p2 (pid " + other.pid() + ") did not acknowledge the stop"
              + " request within " + TimeUnit.NANOSECONDS.toMillis(STOP_GRACE_NANOS)
              + " ms; killed with SIGKILL");
          progress.note(kills.get(kills.size() - 1));
          otherKilled = true;
        }
        if ((drainedAt != 0 || s.complete()) && threads.stream().noneMatch(Thread::isAlive)
            && !other.isAlive() && victimGone) {
          break;
        }
        checkProgress(deadline);
        TimeUnit.MILLISECONDS.sleep(10);
      }
      joinAll(threads, otherKilled ? null : other);
      PlanState end = ledger.load().state();
      progress.show("session 1", end);
      progress.note("session 1 stopped, leaving " + describe(end.recoverable()));
      return stopped;
    }
  }

  private Report sessionTwo(List<String> kills, List<String> stopped)
      throws IOException, InterruptedException {
    // A restart: fresh store instances over the same directory.
    try (FileLedgerStore store = FileLedgerStore.open(config.dir());
        FileArtifactStore artifacts = FileArtifactStore.open(config.dir())) {
      Ledger<PlanState> ledger = store.ledger(config.planId(), PlanState.class);
      List<Operation> recovered = Orchestration.recover(new PlanLedger(ledger));
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
      Map<String, OperationStatus> outcomes = new TreeMap<>();
      for (Operation op : recovered) {
        outcomes.put(op.id(), s.operations().get(op.id()).status());
      }
      return new Report(RunSummary.of(ledger.load(), artifacts), List.copyOf(kills), stopped,
          recovered, outcomes);
    }
  }

  /** The operation {@code worker} runs if it has claimed at least {@code claims}. */
  private static Optional<Operation> hung(PlanState s, String worker, int claims) {
    if (s.countOperations(o -> worker.equals(o.owner())) < claims) {
      return Optional.empty();
    }
    return s.operations().values().stream()
        .filter(o -> o.status() == OperationStatus.RUNNING && worker.equals(o.owner()))
        .findFirst();
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
          new PlanLedger(store.ledger(config.planId(), PlanState.class)), artifacts,
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
    if (process != null && process.waitFor() != 0) {
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
