package dev.ledger.examples.registry;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.google.common.io.MoreFiles;
import com.google.common.io.RecursiveDeleteOption;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.registry.Lineage;
import dev.ledger.registry.NewRun;
import dev.ledger.registry.RunEvent;
import dev.ledger.registry.RunOwner;
import dev.ledger.registry.RunRecord;
import dev.ledger.registry.RunRegistry;
import dev.ledger.registry.RunStatus;
import dev.ledger.registry.StaleRunRevisionException;
import dev.ledger.registry.TransitionDetails;
import dev.ledger.registry.Workspace;
import dev.ledger.registry.collections.CollectionRunRegistry;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The run registry example ({@code ./run-example registry}): a small launcher of external
 * jobs that keeps its runs in a {@link RunRegistry} on a file store, as a daemon that launches
 * pipelines would.
 *
 * <ol>
 *   <li>It registers a workspace and allocates three runs ({@code starting}, revision 1):
 *       {@code align-1}, {@code call-1} and {@code report-1}, each the first attempt of its
 *       lineage.
 *   <li>For each it starts a real child process ({@link ExampleJob} in its own JVM) and
 *       records the process id ({@code setRunPid}, no event). When a job says it is ready the
 *       run becomes {@code running}; when it exits, {@code completed} or {@code failed} with
 *       its exit code (and, for a failure, the last line it printed as the failure summary).
 *   <li>{@code call-1} fails (exit 3), and the launcher re-attempts it: {@code call-2} is
 *       allocated as attempt 2 of the lineage {@code call-1}, and completes.
 *   <li>{@code report-1} waits forever, so the launcher cancels it: first a transition with a
 *       stale revision, refused ({@code StaleRunRevisionException}, expected and actual), then
 *       {@code cancel_requested}, SIGTERM to the process, {@code canceling}, and
 *       {@code canceled} with its exit code when it is gone.
 * </ol>
 *
 * <p>Every transition names the revision the launcher last saw; it is the only writer, so
 * none conflicts. At the end it prints the lineages ({@code listRecentLineages}, newest first,
 * attempts in order) and the events of each run (one per revision), then reopens the store
 * and checks that no run is active. Each step waits for a process to say or do something,
 * never for a moment in time: the story is the same on every run, only pids and times change,
 * and the order of lines from different runs.
 */
public final class RegistryExample {
  /** The usage text of {@code ./run-example registry --help}. */
  static final String USAGE = """
      usage: ./run-example registry [--dir DIR]

      Launches real child processes as runs of a run registry kept on a file store
      (DIR/store), in a registered workspace (DIR/workspace): one completes, one fails
      and is re-attempted in the same lineage, one is cancelled. Prints the lineages.
        --dir DIR   where the store and the workspace go; a previous run's are deleted
                    first, but only if DIR holds one (default target/registry-example)
      """;

  /** The implementation name this launcher owns its runs under. */
  static final String IMPLEMENTATION = "registry-example";
  static final String WORKSPACE_ID = "genomics";
  private static final Duration PROCESS_DEADLINE = Duration.ofSeconds(60);

  private final Path dir;
  private final PrintStream out;
  private final RunOwner owner = RunOwner.local(IMPLEMENTATION, "launcher-1");
  private final BlockingQueue<Signal> signals = new LinkedBlockingQueue<>();
  private final Map<String, Launched> launched = new LinkedHashMap<>();
  private RunRegistry registry;
  private Workspace workspace;

  private RegistryExample(Path dir, PrintStream out) {
    this.dir = dir;
    this.out = out;
  }

  /** What a job's output reader tells the launcher, in the order it happened. */
  private sealed interface Signal permits Ready, Exited {
    String name();
  }

  private record Ready(String name) implements Signal {}

  private record Exited(String name, int code, String lastLine) implements Signal {}

  /** A run and its process: the record as of the launcher's last write. */
  private static final class Launched {
    RunRecord record;
    Process process;
    final String mode;

    Launched(RunRecord record, String mode) {
      this.record = record;
      this.mode = mode;
    }
  }

  /**
   * Runs the example as {@code ./run-example registry ARGS} does.
   *
   * @param args the arguments after {@code registry}
   * @param out standard output
   * @param err standard error
   * @return the exit status: 0 on success and for {@code --help}, 1 if the run fails, 2 on
   *     bad arguments
   * @throws IOException if the directory cannot be prepared or a process cannot be started
   * @throws InterruptedException if interrupted while waiting for the processes
   */
  public static int run(List<String> args, PrintStream out, PrintStream err)
      throws IOException, InterruptedException {
    List<String> rest = new ArrayList<>(args);
    if (rest.contains("--help") || rest.contains("-h")) {
      out.print(USAGE);
      return 0;
    }
    Path dir = Path.of("target", "registry-example");
    int at = rest.indexOf("--dir");
    if (at >= 0) {
      if (at + 1 >= rest.size()) {
        err.println("--dir needs a value");
        err.print(USAGE);
        return 2;
      }
      dir = Path.of(rest.get(at + 1));
      rest.subList(at, at + 2).clear();
    }
    if (!rest.isEmpty()) {
      err.println("unknown arguments " + rest);
      err.print(USAGE);
      return 2;
    }
    dir = dir.toAbsolutePath().normalize();
    if (!prepare(dir, err)) {
      return 1;
    }
    return new RegistryExample(dir, out).launchAll();
  }

  /** Deletes a previous run's store and workspace; refuses a directory that holds others. */
  private static boolean prepare(Path dir, PrintStream err) throws IOException {
    if (Files.isDirectory(dir)) {
      try (var entries = Files.list(dir)) {
        List<String> names = entries.map(p -> p.getFileName().toString()).sorted().toList();
        boolean ours = Files.exists(dir.resolve("store").resolve("store.json"))
            && List.of("store", "workspace").containsAll(names);
        if (!names.isEmpty() && !ours) {
          err.println(dir + " holds something else than a previous run (" + names
              + "): not deleting it; choose another --dir");
          return false;
        }
      }
      MoreFiles.deleteRecursively(dir, RecursiveDeleteOption.ALLOW_INSECURE);
    }
    Files.createDirectories(dir.resolve("workspace"));
    return true;
  }

  private int launchAll() throws IOException, InterruptedException {
    long start = System.nanoTime();
    Path storeDir = dir.resolve("store");
    out.println("run registry example: real processes as runs, kept in " + storeDir);
    try (FileLedgerStore store = FileLedgerStore.open(storeDir)) {
      registry = registry(store);
      workspace = registry.registerWorkspace(WORKSPACE_ID, dir.resolve("workspace"));
      out.println("workspace  " + workspace.id() + " at " + workspace.canonicalPath());
      launch("align-1", null, 1, "succeed");
      launch("call-1", null, 1, "fail");
      launch("report-1", null, 1, "wait");
      try {
        superviseUntilAllEnd();
      } finally {
        for (Launched l : launched.values()) {
          if (l.process != null) {
            l.process.destroyForcibly();
          }
        }
      }
      printLineages();
    }
    // A new store over the same directory, as a restarted launcher would open it.
    try (FileLedgerStore store = FileLedgerStore.open(storeDir)) {
      RunRegistry reopened = registry(store);
      boolean active = reopened.hasActiveRuns(IMPLEMENTATION);
      out.println("reopened   " + launched.size() + " runs, active runs of " + IMPLEMENTATION
          + ": " + (active ? "some" : "none"));
      if (active) {
        return 1;
      }
    }
    out.printf(Locale.ROOT, "done in %.1f s%n", (System.nanoTime() - start) / 1e9);
    return 0;
  }

  /**
   * The example's registry on {@code store}, in the default partition.
   *
   * @param store the file store
   * @return the registry
   */
  static RunRegistry registry(FileLedgerStore store) {
    return CollectionRunRegistry.on(store);
  }

  /** Allocates a run (attempt {@code attempt} of lineage {@code firstRunId}) and starts it. */
  private void launch(String name, String firstRunId, int attempt, String mode)
      throws IOException {
    NewRun.Builder run = NewRun.builder(WORKSPACE_ID, name)
        .binding("local")
        .pipeline(name.substring(0, name.indexOf('-')))
        .workflow("main")
        .planChecksum("sha256:" + Integer.toHexString(name.hashCode()))
        .request(JsonNodeFactory.instance.objectNode().put("mode", mode))
        .commandArgv(List.of("ExampleJob", mode))
        .owner(owner);
    if (firstRunId != null) {
      run.attemptOf(firstRunId, attempt);
    }
    RunRecord record = registry.allocateRun(run.build());
    out.printf("allocated  %-9s attempt %d of %-9s %-16s revision %d%n", name,
        record.attemptNumber(), record.firstRunId(), record.status().wireName(),
        record.revision());
    Launched l = new Launched(record, mode);
    launched.put(name, l);
    Path runDir = record.runDirectory();
    Files.createDirectories(runDir);
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    ProcessBuilder builder = new ProcessBuilder(java.toString(), "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1", "-Xmx64m", "-cp", System.getProperty("java.class.path"),
        ExampleJob.class.getName(), mode, runDir.toString());
    builder.redirectErrorStream(true);
    l.process = builder.start();
    l.record = registry.setRunPid(record.id(), l.process.pid());
    out.printf("started    %-9s pid recorded (no event, revision %d)%n", name,
        l.record.revision());
    Thread reader = new Thread(() -> follow(name, l.process, record.launchLogPath()),
        "output-" + name);
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Copies a job's output to its launch log and tells the launcher: {@code ready} when the
   * job says it, then its exit when its output has ended and it is gone. Both come from this
   * one thread, so the launcher never sees an exit before the job's ready.
   */
  private void follow(String name, Process process, Path log) {
    String last = "";
    try (BufferedReader lines = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        BufferedWriter copy = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
      String line;
      while ((line = lines.readLine()) != null) {
        copy.write(line);
        copy.newLine();
        copy.flush();
        if (line.equals("ready")) {
          signals.add(new Ready(name));
        } else if (!line.isBlank()) {
          last = line;
        }
      }
    } catch (IOException e) {
      last = "launcher could not read the output: " + e;
    }
    try {
      signals.add(new Exited(name, process.waitFor(), last));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void superviseUntilAllEnd() throws IOException, InterruptedException {
    while (launched.values().stream().anyMatch(l -> l.record.isActive())) {
      Signal signal = signals.poll(PROCESS_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
      if (signal == null) {
        throw new IllegalStateException("no job started or ended within " + PROCESS_DEADLINE
            + "; runs: " + launched.keySet());
      }
      Launched l = launched.get(signal.name());
      if (signal instanceof Ready) {
        transition(l, RunStatus.RUNNING, TransitionDetails.none().withPid(l.process.pid()),
            "job says ready");
        if (l.mode.equals("wait")) {
          cancel(l);
        }
      } else if (signal instanceof Exited exited) {
        ended(l, exited);
      }
    }
  }

  private void ended(Launched l, Exited exited) throws IOException {
    int code = exited.code();
    String name = exited.name();
    if (l.record.status() == RunStatus.CANCELING
        || l.record.status() == RunStatus.CANCEL_REQUESTED) {
      transition(l, RunStatus.CANCELED, TransitionDetails.none().withReturnCode(code),
          "stopped, exit " + code);
    } else if (code == 0) {
      transition(l, RunStatus.COMPLETED, TransitionDetails.none().withReturnCode(code),
          "exit 0");
    } else {
      transition(l, RunStatus.FAILED, TransitionDetails.none().withReturnCode(code)
          .withFailureSummary(exited.lastLine()), "exit " + code);
      if (l.record.attemptNumber() == 1) {
        String retry = name.substring(0, name.indexOf('-')) + "-"
            + (l.record.attemptNumber() + 1);
        out.printf("re-attempt %-9s in the lineage of %s%n", retry, l.record.firstRunId());
        launch(retry, l.record.firstRunId(), l.record.attemptNumber() + 1, "succeed");
      }
    }
  }

  private void cancel(Launched l) {
    String name = l.record.externalRunId();
    long stale = l.record.revision() - 1;
    try {
      registry.transitionRun(l.record.id(), RunStatus.CANCEL_REQUESTED, stale,
          TransitionDetails.none());
      throw new IllegalStateException("a transition with stale revision " + stale
          + " was accepted");
    } catch (StaleRunRevisionException e) {
      out.printf("refused    %-9s a transition that names revision %d: the run is at %d%n",
          name, e.expected(), e.actual());
    }
    transition(l, RunStatus.CANCEL_REQUESTED, TransitionDetails.none(), "cancel asked");
    // SIGTERM through the process handle: Process.destroy() would also close the job's
    // standard input, which the job takes for the launcher's death (another exit status).
    l.process.toHandle().destroy();
    transition(l, RunStatus.CANCELING, TransitionDetails.none(), "SIGTERM sent");
  }

  private void transition(Launched l, RunStatus to, TransitionDetails details, String why) {
    RunStatus from = l.record.status();
    l.record = registry.transitionRun(l.record.id(), to, l.record.revision(), details);
    out.printf("%-10s %-9s %s -> %s, revision %d (%s)%n", verb(to), l.record.externalRunId(),
        from.wireName(), to.wireName(), l.record.revision(), why);
  }

  private static String verb(RunStatus to) {
    return switch (to) {
      case RUNNING -> "running";
      case CANCEL_REQUESTED, CANCELING, CANCELED -> "cancel";
      case COMPLETED -> "completed";
      case FAILED -> "failed";
      default -> "moved";
    };
  }

  private void printLineages() {
    out.println();
    out.println("lineages, newest first (listRecentLineages), attempts in order:");
    for (Lineage lineage : registry.listRecentLineages(20, 6)) {
      out.printf("  %s: %d %s%n", lineage.firstRunId(), lineage.attempts().size(),
          lineage.attempts().size() == 1 ? "attempt" : "attempts");
      for (RunRecord run : lineage.attempts()) {
        out.printf("    attempt %d  %-9s %-10s exit %-4s revision %d%s%n", run.attemptNumber(),
            run.externalRunId(), run.status().wireName(), run.returnCode(), run.revision(),
            run.failureSummary() == null ? "" : "  \"" + run.failureSummary() + "\"");
      }
    }
    out.println();
    out.println("events of each run (sequence = revision):");
    for (Launched l : launched.values()) {
      List<RunEvent> events = registry.runEvents(l.record.id());
      out.printf("  %-9s %s%n", l.record.externalRunId(), events.stream()
          .map(e -> e.sequence() + " " + (e.from() == null ? "" : e.from().wireName() + "->")
              + e.to().wireName())
          .collect(Collectors.joining(", ")));
    }
  }
}
