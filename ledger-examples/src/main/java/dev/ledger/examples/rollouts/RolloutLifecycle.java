package dev.ledger.examples.rollouts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.google.common.base.Preconditions;
import dev.ledger.collections.patchlog.PatchLogCollectionStore;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.collections.Key;
import dev.ledger.examples.rollouts.RolloutDocuments.Attempt;
import dev.ledger.examples.rollouts.RolloutDocuments.AttemptStatus;
import dev.ledger.examples.rollouts.RolloutDocuments.RolloutConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A run of the rollout store's lifecycle on one partition of a file store, by worker threads
 * of this process and a worker process of its own (a child JVM on the same directory):
 * <ol>
 *   <li>resources are added and updated (version 2), and the rollouts enqueued with them;</li>
 *   <li>worker process {@code process-1} claims the first rollout, adds its first spans and
 *       hangs, as told; it is killed with SIGKILL, a worker dead mid-attempt;</li>
 *   <li>worker process {@code process-2} starts, and the threads join once it has claimed its
 *       first rollout (so both kinds of worker always take part, whatever the timing);</li>
 *   <li>every worker dequeues and claims rollouts with new attempts, adds spans with
 *       sequence ids from the rollout's counter, and ends each attempt succeeded or failed (a
 *       seeded hash decides); a failed attempt with retries left requeues its rollout, and
 *       any worker may take it again. Each of those steps is one transaction.
 *       {@value #UNRESPONSIVE_SECONDS} s after the killed worker's last heartbeat the
 *       watchdog runs, finds its attempt unresponsive and puts the rollout back in the queue
 *       for another attempt;</li>
 *   <li>when every rollout has ended, the partition and its change feed are checked
 *       ({@link RolloutInvariants}).</li>
 * </ol>
 */
public final class RolloutLifecycle {
  /** Attempts each rollout is allowed. */
  static final int MAX_ATTEMPTS = 3;
  /** Silence after which the watchdog finds an attempt unresponsive. */
  static final long UNRESPONSIVE_SECONDS = 10;
  private static final long DEADLINE_NANOS = TimeUnit.MINUTES.toNanos(3);

  /**
   * What to run.
   *
   * @param dir the store directory
   * @param partition the partition
   * @param rollouts how many rollouts
   * @param threads worker threads besides the worker process
   * @param seed seed of the ids and the outcomes
   */
  public record Config(Path dir, String partition, int rollouts, int threads, long seed) {
    /**
     * Checks the values.
     *
     * @param dir the store directory
     * @param partition the partition
     * @param rollouts how many rollouts, at least 1
     * @param threads worker threads, at least 1
     * @param seed the seed
     */
    public Config {
      Preconditions.checkArgument(rollouts >= 1, "rollouts must be >= 1: %s", rollouts);
      Preconditions.checkArgument(threads >= 1, "threads must be >= 1: %s", threads);
    }
  }

  /**
   * What a run did.
   *
   * @param findings the outcomes and the violations of the invariants
   * @param revision the partition's revision at the end: one per committed transaction
   * @param killed the attempt whose worker was killed, {@code <attempt> of <rollout>}
   */
  public record Result(RolloutInvariants.Findings findings, long revision, String killed) {
    /**
     * The summary, one line each.
     *
     * @return the lines
     */
    public List<String> lines() {
      var outcomes = findings.outcomes().values();
      long succeeded = outcomes.stream().filter(o -> o.status()
          == RolloutDocuments.RolloutStatus.SUCCEEDED).count();
      int attempts = outcomes.stream().mapToInt(RolloutInvariants.Outcome::attempts).sum();
      int spans = outcomes.stream().mapToInt(RolloutInvariants.Outcome::spans).sum();
      List<String> lines = new ArrayList<>();
      lines.add("  rollouts     " + outcomes.size() + ": " + succeeded + " succeeded, "
          + (outcomes.size() - succeeded) + " failed after " + MAX_ATTEMPTS + " attempts");
      lines.add("  attempts     " + attempts + " (" + (attempts - outcomes.size())
          + " retries), by worker " + findings.attemptsByWorker());
      lines.add("  spans        " + spans);
      lines.add("  killed       process-1 in attempt " + killed + "; the watchdog found it "
          + "unresponsive and the rollout was retried");
      lines.add("  transactions " + revision + " commits of the partition");
      lines.add(findings.violations().isEmpty()
          ? "  checked      each rollout ended exactly once (change feed), attempts and span "
              + "sequence ids gapless, queue empty, live workers idle"
          : "  VIOLATIONS   " + findings.violations());
      return lines;
    }
  }

  private final Config config;
  private final PrintStream out;

  /**
   * A run.
   *
   * @param config what to run
   * @param out where progress lines go
   */
  public RolloutLifecycle(Config config, PrintStream out) {
    this.config = config;
    this.out = out;
  }

  /**
   * Runs the lifecycle to its end and checks it.
   *
   * @return what it did
   * @throws IOException if the worker process cannot be started
   * @throws InterruptedException if interrupted while waiting for the workers
   * @throws ExecutionException if a worker thread failed
   */
  public Result run() throws IOException, InterruptedException, ExecutionException {
    Random random = new Random(config.seed());
    try (FileLedgerStore ledgers = FileLedgerStore.open(config.dir())) {
      RolloutStore store = new RolloutStore(
          PatchLogCollectionStore.on(ledgers, RolloutStore.SCHEMA), config.partition(),
          Clock.systemUTC(), () -> randomChars(random));
      JsonNodeFactory json = JsonNodeFactory.instance;
      var resources = store.addResources(Map.of("model", json.textNode("base-v1")));
      store.updateResources(resources.resourcesId(), Map.of("model", json.textNode("base-v2")));
      List<JsonNode> inputs = new ArrayList<>();
      for (int i = 0; i < config.rollouts(); i++) {
        inputs.add(json.objectNode().put("task", i));
      }
      store.enqueueRollouts(inputs, "train", new RolloutConfig(null, UNRESPONSIVE_SECONDS,
          MAX_ATTEMPTS, Set.of(AttemptStatus.FAILED, AttemptStatus.UNRESPONSIVE)));
      out.println("enqueued " + config.rollouts() + " rollouts in partition '"
          + config.partition() + "' of " + config.dir());

      // process-1 claims the first rollout and hangs in its attempt, after its first spans:
      // a worker that died mid-attempt. It is killed; the watchdog finds the silence later.
      Process doomed = spawn("process-1", 1);
      String hang;
      try {
        hang = awaitLine(readLines(doomed, "process-1"), doomed, "process-1", "hangs ");
      } finally {
        doomed.destroyForcibly(); // SIGKILL: no shutdown hook, no finally block runs
        doomed.waitFor(DEADLINE_NANOS, TimeUnit.NANOSECONDS);
      }
      String[] hung = hang.split(" ");
      String killed = hung[2] + " of " + hung[1];
      out.println("worker process-1 (a child JVM) hung in attempt " + killed
          + " after its first spans and was killed with SIGKILL");

      Process child = spawn("process-2", 0);
      ExecutorService threads = Executors.newFixedThreadPool(config.threads());
      try {
        LinkedBlockingQueue<String> childLines = readLines(child, "process-2");
        awaitLine(childLines, child, "process-2", "claimed ");
        out.println("worker process-2 (a child JVM) claimed its first rollout; "
            + config.threads() + " worker threads join");
        List<Future<Integer>> running = new ArrayList<>();
        for (int t = 1; t <= config.threads(); t++) {
          RolloutWorker worker = new RolloutWorker("thread-" + t, store, config.seed(),
              line -> { }, 0);
          running.add(threads.submit(worker::runUntilAllEnded));
        }
        runWatchdogFor(store, hung[1], hung[2]);
        out.println("the watchdog found attempt " + killed + " unresponsive "
            + UNRESPONSIVE_SECONDS + " s after its last heartbeat; its rollout is requeued");
        for (Future<Integer> f : running) {
          f.get(DEADLINE_NANOS, TimeUnit.NANOSECONDS);
        }
        awaitLine(childLines, child, "process-2", "done ");
        if (!child.waitFor(DEADLINE_NANOS, TimeUnit.NANOSECONDS) || child.exitValue() != 0) {
          throw new IllegalStateException("worker process-2 did not exit cleanly");
        }
      } catch (TimeoutException e) {
        throw new IllegalStateException("worker threads did not finish within "
            + TimeUnit.NANOSECONDS.toSeconds(DEADLINE_NANOS) + " s", e);
      } finally {
        threads.shutdownNow();
        child.destroyForcibly();
      }
      RolloutInvariants.Findings findings = RolloutInvariants.check(ledgers, store,
          config.partition(), config.seed(), MAX_ATTEMPTS, hung[1], hung[2], "process-1");
      long revision = ledgers.head(config.partition()).orElseThrow().revision();
      return new Result(findings, revision, killed);
    }
  }

  /**
   * Runs the watchdog once the killed attempt has been silent for
   * {@value #UNRESPONSIVE_SECONDS} s, until it finds that attempt. The reference runs it
   * before most operations; here it runs at one moment, so that a live worker slowed down by
   * a loaded machine is judged only then (a live attempt silent that long would be retried
   * too, as in the reference, and the invariants would report it).
   */
  private static void runWatchdogFor(RolloutStore store, String rolloutId, String attemptId)
      throws InterruptedException {
    long deadline = System.nanoTime() + DEADLINE_NANOS;
    while (System.nanoTime() < deadline) {
      Attempt attempt = store.read(v -> v.collection("attempts", Attempt.class)
          .get(Key.of(rolloutId, attemptId))).orElseThrow();
      Instant silentUntil = attempt.lastHeartbeatTime().plusSeconds(UNRESPONSIVE_SECONDS);
      Duration wait = Duration.between(Instant.now(), silentUntil);
      if (!wait.isNegative()) {
        TimeUnit.MILLISECONDS.sleep(wait.toMillis() + 50); // a wait for a time, by design
        continue;
      }
      if (store.watchdog().stream().anyMatch(a -> a.attemptId().equals(attemptId))
          || attempt.status() == AttemptStatus.UNRESPONSIVE) {
        return;
      }
    }
    throw new IllegalStateException("the watchdog did not find attempt " + attemptId
        + " unresponsive");
  }

  private static String randomChars(Random random) {
    String alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < 12; i++) {
      s.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return s.toString();
  }

  private Process spawn(String worker, int hangInAttempt) throws IOException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    ProcessBuilder builder = new ProcessBuilder(java.toString(), "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1", "-Dslf4j.internal.verbosity=ERROR",
        "-cp", System.getProperty("java.class.path"), RolloutWorkerProcess.class.getName(),
        config.dir().toString(), config.partition(), worker, Long.toString(config.seed()),
        Integer.toString(hangInAttempt));
    // Standard input stays an open pipe: the worker halts when it closes (this JVM is gone).
    builder.redirectError(ProcessBuilder.Redirect.INHERIT);
    return builder.start();
  }

  private static LinkedBlockingQueue<String> readLines(Process child, String name) {
    LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(
          child.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          lines.add(line);
        }
      } catch (IOException e) {
        lines.add("error " + e);
      }
    }, name + "-stdout");
    reader.setDaemon(true);
    reader.start();
    return lines;
  }

  /** Waits, with a deadline, for a line of the child that starts with {@code prefix}. */
  private static String awaitLine(LinkedBlockingQueue<String> lines, Process child,
      String name, String prefix) throws InterruptedException {
    long deadline = System.nanoTime() + DEADLINE_NANOS;
    while (true) {
      String line = lines.poll(Math.max(1, deadline - System.nanoTime()),
          TimeUnit.NANOSECONDS);
      if (line == null) {
        throw new IllegalStateException("worker " + name + " printed no '" + prefix
            + "' line within the deadline (alive: " + child.isAlive() + ")");
      }
      if (line.startsWith(prefix)) {
        return line;
      }
    }
  }
}
