package dev.ledger.examples;

import com.google.common.base.Preconditions;
import dev.ledger.artifacts.fs.FileArtifactStore;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
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
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The process-spawning shell around the orchestrator core: runs one plan in two sessions over
 * one directory. Every turn of the story waits for a condition on the ledger or on a process,
 * never for a moment in time, so each run tells the same story; only the numbers (which
 * worker ran what, how many conflicts) change.
 *
 * <p><b>Session 1.</b> Creates the plan and starts worker processes {@code p1} and {@code p2}
 * (child JVMs with this JVM's {@code java} and class path), each told to hang in its second
 * attempt ({@link WorkerProcess}, {@code --hang-in-attempt 2}). They work alone until both
 * hang: the first dispatch queues at least the four tasks without dependencies (a plan has
 * them from {@link #MIN_TASKS} tasks on), so both get there whatever the timing. As soon as {@code p1} hangs it is killed with SIGKILL (a crash
 * mid-attempt); its operation stays {@code running}. Once {@code p2} hangs, worker threads
 * start. When three quarters of the tasks are done, or when nothing else can move (what is
 * left waits on the two hung attempts), the orchestrator drains: the running operations of
 * live workers become {@code stop_requested}, while {@code p1}'s stays {@code running} (it is
 * known to be dead: nobody to ask). The threads acknowledge by cancelling theirs and stop;
 * {@code p2}, hung, does not answer within the grace period and is killed too. Each kill is
 * recorded in the journal as a {@code worker.killed} event.
 *
 * <p><b>Session 2</b> (a restart: fresh store instances over the same directory) recovers
 * what session 1 left: {@code p1}'s running operation goes back to pending, to run again as
 * the same attempt; {@code p2}'s stop-requested one is cancelled and its task waits for a new
 * attempt; pending ones stay pending. Worker process {@code p3} starts alone and claims one of
 * them (there is always {@code p1}'s); then worker threads join and the plan runs to its end.
 */
public final class LocalOrchestrator {
  /** The attempt, counted per worker from 1, in which {@code p1} and {@code p2} hang. */
  static final int HANG_IN_ATTEMPT = 2;

  /**
   * The smallest plan that tells the whole story: from five tasks on, the first four have no
   * dependency (the last task depends on the always-failing one), so the first dispatch
   * queues four attempts, enough for {@code p1} and {@code p2} to reach their second each.
   */
  public static final int MIN_TASKS = 5;

  private static final long WAIT_DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(60);
  private static final long STOP_GRACE_MILLIS = 500;
  private static final Set<String> HANGING = Set.of("p1", "p2");

  /**
   * What to run.
   *
   * @param dir the store directory (ledger and artifacts)
   * @param planId the plan's id, also the ledger's root id
   * @param seed the seed of the plan and of its failures
   * @param tasks the number of tasks, at least {@link #MIN_TASKS}
   * @param maxAttempts failed attempts after which a task fails for good
   * @param threads worker threads per session (besides the worker processes), at least 1
   */
  public record Config(Path dir, String planId, long seed, int tasks, int maxAttempts,
      int threads) {
    /** Checks that the plan can tell the whole story. */
    public Config {
      Preconditions.checkArgument(tasks >= MIN_TASKS, "tasks must be at least %s: %s",
          MIN_TASKS, tasks);
      Preconditions.checkArgument(threads >= 1, "threads must be at least 1: %s", threads);
    }
  }

  private final Config config;
  private final Progress progress;
  private final Path logs;
  private final List<Process> children = new ArrayList<>();
  private final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();

  /**
   * An orchestrator for {@code config}, reporting on {@code progress}.
   *
   * @param config what to run
   * @param progress where to show progress and notes
   */
  public LocalOrchestrator(Config config, Progress progress) {
    this.config = config;
    this.progress = progress;
    this.logs = config.dir().resolveSibling(config.dir().getFileName() + "-logs");
  }

  /**
   * Runs both sessions; child processes still alive on failure are killed. Worker processes
   * write their logs to the directory {@code <dir>-logs}.
   *
   * @return the summary as the orchestrator knows it at the end
   * @throws IOException if a worker process cannot be started
   * @throws InterruptedException if interrupted while waiting
   * @throws IllegalStateException if a worker fails, or a turn of the story does not come
   *     within a minute
   */
  public RunSummary run() throws IOException, InterruptedException {
    Files.createDirectories(logs);
    try {
      return sessionTwo(sessionOne());
    } finally {
      children.forEach(Process::destroyForcibly);
    }
  }

  private List<WorkerKill> sessionOne() throws IOException, InterruptedException {
    List<WorkerKill> kills = new ArrayList<>();
    try (FileLedgerStore store = FileLedgerStore.open(config.dir());
        FileArtifactStore artifacts = FileArtifactStore.open(config.dir())) {
      Ledger<PlanState> ledger = store.ledger(config.planId(), PlanState.class);
      PlanLedger orchestrator = new PlanLedger(ledger);
      Orchestration.create(ledger, Plans.generate(config.planId(), config.seed(), config.tasks(),
          config.maxAttempts()));
      progress.note("session 1: plan " + config.planId() + ", " + Plural.of(config.tasks(), "task")
          + ", each given up after " + Plural.of(config.maxAttempts(), "failed attempt"));
      progress.note("session 1: worker processes p1 and p2 start, each told to hang in its"
          + " second attempt");
      Process p1 = spawn("p1", HANG_IN_ATTEMPT);
      Process p2 = spawn("p2", HANG_IN_ATTEMPT);

      Operation p2Hangs = null;
      long deadline = deadline();
      while (kills.isEmpty() || p2Hangs == null) {
        PlanState s = ledger.load().state();
        progress.show("session 1", s);
        if (kills.isEmpty()) {
          expectAlive(p1, "p1");
          Optional<Operation> p1Hangs = hanging(s, "p1");
          if (p1Hangs.isPresent()) {
            WorkerKill kill = kill(p1, "p1", p1Hangs.get(),
                "it hung, as told, and stands for a worker that crashed mid-attempt");
            Orchestration.recordKill(orchestrator, kill);
            kills.add(kill);
            progress.note("p1 hangs in " + kill.operation() + ": killed with SIGKILL");
          }
        }
        expectAlive(p2, "p2");
        if (p2Hangs == null) {
          p2Hangs = hanging(s, "p2").orElse(null);
        }
        waitALittle(deadline, "p1 and p2 to hang in their second attempt");
      }
      List<Thread> threads = startThreads(store, artifacts, 1);
      progress.note("p2 hangs in " + p2Hangs.id() + "; worker threads "
          + threadNames(1) + " start");

      deadline = deadline();
      PlanState s;
      while (!((s = ledger.load().state()).countTasks(t -> t.status().terminal()) * 4
          >= s.tasks().size() * 3L || stuck(s))) {
        progress.show("session 1", s);
        expectAlive(p2, "p2");
        waitALittle(deadline, "three quarters of the tasks to be done");
      }
      progress.show("session 1", s);
      List<String> stopped = Orchestration.requestDrain(orchestrator, Set.of("p1"));
      long drainedAt = System.nanoTime();
      // After the drain commit no task can end in this session: the count is the drain's.
      PlanState drained = ledger.load().state();
      progress.note("draining at " + drained.countTasks(t -> t.status().terminal()) + "/"
          + drained.tasks().size() + " tasks done" + (stuck(s) ? " (the rest waits on the hung"
          + " attempts)" : "") + "; stop requested for " + withOwners(drained, stopped));

      joinThreads(threads, deadline());
      long graceLeft = STOP_GRACE_MILLIS
          - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - drainedAt);
      if (p2.waitFor(Math.max(0, graceLeft), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException("p2 exited with " + p2.exitValue()
            + " although told to hang; see " + logs.resolve("p2.log"));
      }
      WorkerKill kill = kill(p2, "p2", p2Hangs, "it did not acknowledge the stop request within "
          + STOP_GRACE_MILLIS + " ms");
      Orchestration.recordKill(orchestrator, kill);
      kills.add(kill);
      progress.note("worker threads stopped; p2 did not acknowledge within " + STOP_GRACE_MILLIS
          + " ms: killed with SIGKILL");
      PlanState end = ledger.load().state();
      progress.show("session 1", end);
      progress.note("session 1 stopped, leaving " + describe(end.recoverable()));
      return kills;
    }
  }

  private RunSummary sessionTwo(List<WorkerKill> kills)
      throws IOException, InterruptedException {
    // A restart: fresh store instances over the same directory.
    try (FileLedgerStore store = FileLedgerStore.open(config.dir());
        FileArtifactStore artifacts = FileArtifactStore.open(config.dir())) {
      Ledger<PlanState> ledger = store.ledger(config.planId(), PlanState.class);
      List<Operation> recovered = Orchestration.recover(new PlanLedger(ledger));
      progress.note("session 2: restarted on fresh stores; recovered " + describe(recovered));
      progress.note("session 2: worker process p3 starts alone");
      Process p3 = spawn("p3", 0);
      long deadline = deadline();
      List<String> claimed;
      while ((claimed = claimedBy(ledger.load().state(), "p3")).isEmpty()) {
        expectAlive(p3, "p3");
        waitALittle(deadline, "p3 to claim an operation");
      }
      List<Thread> threads = startThreads(store, artifacts, config.threads() + 1);
      progress.note("p3 claimed " + String.join(", ", claimed) + "; worker threads "
          + threadNames(config.threads() + 1) + " start");
      deadline = deadline();
      PlanState s;
      while (!(s = ledger.load().state()).complete() || p3.isAlive()
          || threads.stream().anyMatch(Thread::isAlive)) {
        progress.show("session 2", s);
        waitALittle(deadline, "the plan to complete");
      }
      joinThreads(threads, deadline);
      if (p3.waitFor() != 0) {
        throw new IllegalStateException("p3 exited with " + p3.exitValue() + "; see "
            + logs.resolve("p3.log"));
      }
      progress.show("session 2", s);
      progress.end();
      long events;
      try (Stream<Event> all = ledger.replay(Cursor.START)) {
        events = all.count();
      }
      return RunSummary.of(ledger.load(), artifacts, kills, recovered, events);
    }
  }

  /** The operation {@code worker} hangs in: its {@link #HANG_IN_ATTEMPT}-th, once running. */
  private static Optional<Operation> hanging(PlanState s, String worker) {
    if (s.countOperations(o -> worker.equals(o.owner())) < HANG_IN_ATTEMPT) {
      return Optional.empty();
    }
    // A worker runs one operation at a time: its running one is the last it claimed.
    return s.operations().values().stream()
        .filter(o -> worker.equals(o.owner()) && o.status() == OperationStatus.RUNNING)
        .findFirst();
  }

  /** The operations {@code worker} claimed, in id order. */
  private static List<String> claimedBy(PlanState s, String worker) {
    return s.operations().values().stream().filter(o -> worker.equals(o.owner()))
        .map(Operation::id).toList();
  }

  /**
   * Whether nothing can move until the hung attempts end: no task ready, nothing pending and
   * no attempt running but theirs.
   */
  private static boolean stuck(PlanState s) {
    return s.ready().isEmpty()
        && s.countOperations(o -> o.status() == OperationStatus.PENDING) == 0
        && s.countOperations(o -> o.status() == OperationStatus.RUNNING
            && !HANGING.contains(o.owner())) == 0;
  }

  private static String withOwners(PlanState s, List<String> ids) {
    List<String> parts = new ArrayList<>();
    ids.forEach(id -> parts.add(id + " (" + s.operations().get(id).owner() + ")"));
    return String.join(", ", parts);
  }

  private static String describe(List<Operation> ops) {
    if (ops.isEmpty()) {
      return "no recoverable operation";
    }
    List<String> parts = new ArrayList<>();
    ops.forEach(o -> parts.add(o.id() + " (" + o.status().wireName()
        + (o.owner() == null ? "" : ", " + o.owner()) + ")"));
    return Plural.of(ops.size(), "recoverable operation") + ": " + String.join(", ", parts);
  }

  private WorkerKill kill(Process process, String worker, Operation op, String reason)
      throws InterruptedException {
    process.destroyForcibly(); // SIGKILL: no shutdown hook, no finally block runs
    if (!process.waitFor(WAIT_DEADLINE_NANOS, TimeUnit.NANOSECONDS)) {
      throw new IllegalStateException(worker + " survived SIGKILL");
    }
    return new WorkerKill(worker, process.pid(), op.id(), reason);
  }

  private String threadNames(int first) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < config.threads(); i++) {
      names.add("t" + (first + i));
    }
    if (names.size() == 1) {
      return names.get(0);
    }
    return String.join(", ", names.subList(0, names.size() - 1)) + " and "
        + names.get(names.size() - 1);
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

  private Process spawn(String worker, int hangInAttempt) throws IOException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> command = new ArrayList<>(List.of(java.toString(), "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1", "-Dslf4j.internal.verbosity=ERROR",
        "-cp", System.getProperty("java.class.path"), WorkerProcess.class.getName(),
        config.dir().toString(), config.planId(), worker));
    if (hangInAttempt > 0) {
      command.addAll(List.of("--hang-in-attempt", Integer.toString(hangInAttempt)));
    }
    ProcessBuilder builder = new ProcessBuilder(command);
    // Standard input stays an open pipe: the worker exits when it closes (this JVM is gone).
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

  private void expectAlive(Process process, String worker) {
    if (!process.isAlive()) {
      throw new IllegalStateException("worker process " + worker + " exited with "
          + process.exitValue() + " before its turn in the story; see "
          + logs.resolve(worker + ".log"));
    }
  }

  private void joinThreads(List<Thread> threads, long deadline) throws InterruptedException {
    for (Thread t : threads) {
      t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      if (t.isAlive()) {
        throw new IllegalStateException(t.getName() + " did not stop in time");
      }
    }
    checkFailures();
  }

  private static long deadline() {
    return System.nanoTime() + WAIT_DEADLINE_NANOS;
  }

  /** Between two looks at the ledger: fails on a worker failure or past the deadline. */
  private void waitALittle(long deadline, String waitingFor) throws InterruptedException {
    checkFailures();
    if (System.nanoTime() > deadline) {
      throw new IllegalStateException("waited a minute for " + waitingFor
          + "; worker logs in " + logs);
    }
    TimeUnit.MILLISECONDS.sleep(10);
  }

  private void checkFailures() {
    Throwable failure = failures.peek();
    if (failure != null) {
      throw new IllegalStateException("a worker thread failed: " + failure, failure);
    }
  }
}
