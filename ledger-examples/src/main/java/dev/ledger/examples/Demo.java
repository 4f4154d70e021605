package dev.ledger.examples;

import com.google.common.io.MoreFiles;
import com.google.common.io.RecursiveDeleteOption;
import dev.ledger.core.LedgerException;
import dev.ledger.examples.registry.RegistryExample;
import dev.ledger.examples.rollouts.RolloutLifecycle;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The example a new user runs first ({@code ./run-example}). Without a command it runs the
 * {@link LocalOrchestrator} (two sessions, two killed worker processes, recovery), replays a
 * copy of the directory it wrote offline, prints a summary, and checks that the summary
 * agrees with the files ({@link RunSummary#read}); {@code replay DIR} replays any store
 * directory; {@code registry} runs the run registry example ({@link RegistryExample}). See
 * {@link #USAGE}.
 *
 * <p>Exit status: 0 on success and for {@code --help}; 1 if the run fails or its summary
 * disagrees with the files; 2 on bad arguments (usage on standard error).
 */
public final class Demo {
  /** The usage text printed by {@code --help}, and on standard error for bad arguments. */
  static final String USAGE = """
      usage: ./run-example [--dir DIR] [--tasks N] [--seed S] [--threads T]
             ./run-example replay DIR [--out FILE|-]
             ./run-example registry [--dir DIR]
             ./run-example rollouts [--dir DIR] [--rollouts N] [--seed S] [--threads T]
             ./run-example --help

      Without a command: runs a local orchestrator over one store directory in two
      sessions (worker processes p1 and p2 are told to hang and are killed; a restarted
      session recovers what they left and finishes the plan), replays a copy of the
      directory offline, prints a summary and checks it against the files.
        --dir DIR      the store directory; a previous run's is deleted first, but only
                       if it holds a store (default target/ledger-example)
        --tasks N      tasks in the plan, 5 to 99 (default 40)
        --seed S       seed of the plan and of which attempts fail (default 7)
        --threads T    worker threads per session besides the processes, 1 to 8
                       (default 2)

      replay DIR: opens a store directory read-only, prints a timeline per task and
      writes the journal as JSON Lines.
        --out FILE|-   where the JSON Lines go, - for standard output
                       (default DIR-journal.jsonl)

      registry: launches real processes as runs of a run registry (one completes,
      one fails and is re-attempted, one is cancelled) and prints the lineages; see
      ./run-example registry --help.
      rollouts: the rollout store on ledger-collections (rollouts, attempts, spans,
      resources, workers, the rollout queue, the span sequence-id counter) in one
      partition; worker threads and worker processes dequeue, claim, add spans, and
      finish or retry, each step one transaction; one process is killed mid-attempt and
      the watchdog requeues its rollout; then the invariants are checked.
        --dir DIR      the store directory; a previous run's is deleted first, but only
                       if it holds a store (default target/ledger-rollouts)
        --rollouts N   rollouts to enqueue, 1 to 500 (default 40)
        --seed S       seed of the ids and of which attempts fail (default 7)
        --threads T    worker threads besides the process, 1 to 8 (default 2)

      Relative paths are resolved against the working directory (./run-example runs in
      the repository root).
      """;

  private static final String PLAN_ID = "example-plan";
  private static final int MAX_ATTEMPTS = 3;

  private Demo() {}

  /** Bad arguments: the message, then the usage, go to standard error. */
  private static final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }

  /**
   * Entry point; see the class comment.
   *
   * @param args the command line
   * @throws Exception if the run fails for another reason than bad arguments or a refused
   *     replay
   */
  public static void main(String[] args) throws Exception {
    int status = run(args, System.out, System.err, System.console() != null);
    if (status != 0) {
      System.exit(status);
    }
  }

  /**
   * Runs the demo as {@link #main} does, printing on the given streams.
   *
   * @param args the command line
   * @param out standard output
   * @param err standard error
   * @param terminal whether {@code out} is a terminal (progress rewrites one line in place)
   * @return the exit status
   * @throws IOException if the directory cannot be prepared, copied or exported
   * @throws InterruptedException if interrupted while waiting for the workers
   */
  static int run(String[] args, PrintStream out, PrintStream err, boolean terminal)
      throws IOException, InterruptedException {
    List<String> rest = new ArrayList<>(List.of(args));
    if (!rest.isEmpty() && rest.get(0).equals("registry")) {
      return RegistryExample.run(rest.subList(1, rest.size()), out, err);
    }
    if (rest.contains("--help") || rest.contains("-h")) {
      out.print(USAGE);
      return 0;
    }
    try {
      if (!rest.isEmpty() && rest.get(0).equals("replay")) {
        return replayOnly(rest.subList(1, rest.size()), out, err);
      }
      if (!rest.isEmpty() && rest.get(0).equals("rollouts")) {
        return rollouts(new ArrayList<>(rest.subList(1, rest.size())), out, err);
      }
      Path dir = Path.of(option(rest, "--dir", "target/ledger-example")).toAbsolutePath()
          .normalize();
      int tasks = number(option(rest, "--tasks", "40"), "--tasks",
          LocalOrchestrator.MIN_TASKS, 99);
      long seed = number(option(rest, "--seed", "7"), "--seed", Long.MIN_VALUE, Long.MAX_VALUE);
      int threads = number(option(rest, "--threads", "2"), "--threads", 1, 8);
      if (!rest.isEmpty()) {
        throw new UsageException("unknown arguments " + rest);
      }
      return runAndReplay(new LocalOrchestrator.Config(dir, PLAN_ID, seed, tasks, MAX_ATTEMPTS,
          threads), out, err, terminal);
    } catch (UsageException e) {
      err.println(e.getMessage());
      err.print(USAGE);
      return 2;
    }
  }

  private static int rollouts(List<String> rest, PrintStream out, PrintStream err)
      throws UsageException, IOException, InterruptedException {
    Path dir = Path.of(option(rest, "--dir", "target/ledger-rollouts")).toAbsolutePath()
        .normalize();
    int rollouts = number(option(rest, "--rollouts", "40"), "--rollouts", 1, 500);
    long seed = number(option(rest, "--seed", "7"), "--seed", Long.MIN_VALUE, Long.MAX_VALUE);
    int threads = number(option(rest, "--threads", "2"), "--threads", 1, 8);
    if (!rest.isEmpty()) {
      throw new UsageException("unknown arguments " + rest);
    }
    long start = System.nanoTime();
    deletePreviousStore(dir);
    RolloutLifecycle.Result result;
    try {
      result = new RolloutLifecycle(new RolloutLifecycle.Config(dir, "rollouts", rollouts,
          threads, seed), out).run();
    } catch (java.util.concurrent.ExecutionException e) {
      err.println("a worker thread failed: " + e.getCause());
      e.getCause().printStackTrace(err);
      return 1;
    }
    out.println();
    out.println("summary");
    result.lines().forEach(out::println);
    out.println("  ledger       " + dir);
    if (!result.findings().violations().isEmpty()) {
      err.println("the run broke its invariants:");
      result.findings().violations().forEach(v -> err.println("  " + v));
      return 1;
    }
    out.printf("done in %.1f s%n", (System.nanoTime() - start) / 1e9);
    return 0;
  }

  private static int replayOnly(List<String> args, PrintStream out, PrintStream err)
      throws UsageException, IOException {
    List<String> rest = new ArrayList<>(args);
    if (rest.isEmpty() || rest.get(0).startsWith("-")) {
      throw new UsageException("replay needs a directory");
    }
    Path dir = Path.of(rest.remove(0));
    String jsonl = option(rest, "--out", dir.toAbsolutePath().normalize() + "-journal.jsonl");
    if (!rest.isEmpty()) {
      throw new UsageException("unknown arguments " + rest);
    }
    PrintStream text = "-".equals(jsonl) ? err : out; // standard output carries the JSON then
    try {
      replay(dir, jsonl, out, text, text);
      return 0;
    } catch (LedgerException e) {
      err.println("cannot replay " + dir + ": " + e.getMessage());
      return 1;
    }
  }

  private static int runAndReplay(LocalOrchestrator.Config config, PrintStream out,
      PrintStream err, boolean terminal) throws IOException, InterruptedException {
    long start = System.nanoTime();
    Path dir = config.dir();
    Path copy = dir.resolveSibling(dir.getFileName() + "-copy");
    deletePreviousStore(dir);
    deletePreviousStore(copy);
    RunSummary summary = new LocalOrchestrator(config, new Progress(out, terminal)).run();

    copyTree(dir, copy);
    out.println();
    out.println("offline replay of a copy, opened read-only: " + copy);
    String jsonl = dir + "-journal.jsonl";
    JournalReplay.Result replay = replay(copy, jsonl, out, out, out);

    out.println();
    out.println("summary");
    summary.lines().forEach(out::println);
    out.println("  ledger     " + dir);
    out.println("  exported   " + jsonl);

    List<String> disagreements = check(summary, dir, replay, Path.of(jsonl));
    if (!disagreements.isEmpty()) {
      err.println("the summary does not agree with the files in " + dir + ":");
      disagreements.forEach(line -> err.println("  " + line));
      return 1;
    }
    out.println("  checked    recomputed from the files alone (journal replayed read-only,"
        + " snapshots listed, blobs re-hashed): the summary agrees");
    out.printf("done in %.1f s%n", (System.nanoTime() - start) / 1e9);
    return 0;
  }

  /**
   * Where the printed summary disagrees with the store directory, the replay of its copy and
   * the exported journal; empty if nowhere.
   */
  static List<String> check(RunSummary printed, Path dir, JournalReplay.Result replay,
      Path jsonl) throws IOException {
    List<String> problems = new ArrayList<>();
    RunSummary fromFiles = RunSummary.read(dir, printed.planId());
    if (!fromFiles.equals(printed)) {
      List<String> a = printed.lines();
      List<String> b = fromFiles.lines();
      for (int i = 0; i < Math.max(a.size(), b.size()); i++) {
        String left = i < a.size() ? a.get(i) : "(nothing)";
        String right = i < b.size() ? b.get(i) : "(nothing)";
        if (!left.equals(right)) {
          problems.add("printed:    " + left.strip());
          problems.add("from files: " + right.strip());
        }
      }
      if (problems.isEmpty()) {
        problems.add("printed " + printed + ", from files " + fromFiles);
      }
    }
    if (replay.events() != printed.events()) {
      problems.add("the replay of the copy read " + replay.events() + " events, the summary says "
          + printed.events());
    }
    long lines;
    try (Stream<String> all = Files.lines(jsonl)) {
      lines = all.count();
    }
    if (lines != printed.events()) {
      problems.add(jsonl + " has " + lines + " lines, the summary says " + printed.events()
          + " events");
    }
    return problems;
  }

  private static JournalReplay.Result replay(Path dir, String out, PrintStream stdout,
      PrintStream timeline, PrintStream notes) throws IOException {
    JournalReplay.Result result;
    if ("-".equals(out)) {
      result = JournalReplay.replay(dir, stdout);
    } else {
      try (OutputStream file = new BufferedOutputStream(Files.newOutputStream(Path.of(out)))) {
        result = JournalReplay.replay(dir, file);
      }
    }
    for (Map.Entry<String, TaskTimeline> e : result.timelines().entrySet()) {
      notes.println("timeline of " + e.getKey() + " (" + e.getValue().events() + " events):");
      e.getValue().lines().forEach(line -> timeline.println("  " + line));
    }
    if (!"-".equals(out)) {
      notes.println("journal exported as JSON Lines: " + out + " (" + result.events()
          + " lines)");
    }
    return result;
  }

  private static String option(List<String> args, String name, String fallback)
      throws UsageException {
    int i = args.indexOf(name);
    if (i < 0) {
      return fallback;
    }
    if (i + 1 >= args.size()) {
      throw new UsageException(name + " needs a value");
    }
    String value = args.get(i + 1);
    args.subList(i, i + 2).clear();
    return value;
  }

  private static int number(String value, String name, int min, int max)
      throws UsageException {
    return (int) number(value, name, (long) min, (long) max);
  }

  private static long number(String value, String name, long min, long max)
      throws UsageException {
    long n;
    try {
      n = Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new UsageException(name + " needs a whole number: " + value);
    }
    if (n < min || n > max) {
      throw new UsageException(name + " must be " + min + " to " + max + ": " + value);
    }
    return n;
  }

  private static void deletePreviousStore(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    if (!Files.exists(dir.resolve("store.json"))) {
      throw new IllegalStateException(dir + " exists and is not a ledger store; not deleting it");
    }
    MoreFiles.deleteRecursively(dir, RecursiveDeleteOption.ALLOW_INSECURE);
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path p : (Iterable<Path>) paths::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
  }
}
