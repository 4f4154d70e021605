package dev.ledger.examples;

import com.google.common.io.MoreFiles;
import com.google.common.io.RecursiveDeleteOption;
import dev.ledger.core.LedgerException;
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
 * The example a new user runs first. Without arguments it runs the {@link LocalOrchestrator}
 * (two sessions, a killed worker process, recovery), then replays a copy of the directory it
 * wrote offline and prints a summary.
 *
 * <pre>
 * Demo [--dir DIR] [--tasks N] [--seed S] [--threads T]   run, then replay a copy
 * Demo replay DIR [--out FILE|-]                          replay only; JSON Lines to FILE or stdout
 * </pre>
 * Defaults: {@code --dir target/ledger-example --tasks 40 --seed 7 --threads 2}. A previous
 * run's directory is deleted first, but only if it holds a store ({@code store.json}).
 */
public final class Demo {
  private Demo() {}

  /** Entry point; see the class comment. Exits with status 2 on bad arguments. */
  public static void main(String[] args) throws Exception {
    List<String> rest = new ArrayList<>(List.of(args));
    if (!rest.isEmpty() && rest.get(0).equals("replay")) {
      rest.remove(0);
      if (rest.isEmpty()) {
        usage("replay needs a directory");
      }
      Path dir = Path.of(rest.remove(0));
      String out = option(rest, "--out", dir.toAbsolutePath().normalize() + "-journal.jsonl");
      if (!rest.isEmpty()) {
        usage("unknown arguments " + rest);
      }
      PrintStream text = "-".equals(out) ? System.err : System.out; // stdout carries the JSON
      try {
        replay(dir, out, text, text);
      } catch (LedgerException e) {
        System.err.println("cannot replay " + dir + ": " + e.getMessage());
        System.exit(1);
      }
      return;
    }
    Path dir = Path.of(option(rest, "--dir", "target/ledger-example")).toAbsolutePath()
        .normalize();
    int tasks = Integer.parseInt(option(rest, "--tasks", "40"));
    long seed = Long.parseLong(option(rest, "--seed", "7"));
    int threads = Integer.parseInt(option(rest, "--threads", "2"));
    if (!rest.isEmpty()) {
      usage("unknown arguments " + rest);
    }
    long start = System.nanoTime();
    Path copy = dir.resolveSibling(dir.getFileName() + "-copy");
    deletePreviousStore(dir);
    deletePreviousStore(copy);
    LocalOrchestrator.Report report = new LocalOrchestrator(
        new LocalOrchestrator.Config(dir, "example-plan", seed, tasks, 3, threads),
        Progress.onStdout()).run();

    copyTree(dir, copy);
    System.out.println();
    System.out.println("offline replay of a copy, opened read-only: " + copy);
    String jsonl = dir + "-journal.jsonl";
    JournalReplay.Result replay = replay(copy, jsonl, System.out, System.out);

    RunSummary s = report.summary();
    System.out.println();
    System.out.println("summary");
    System.out.printf("  tasks      %d: %d succeeded, %d failed after %d attempts, %d skipped"
        + " (a dependency failed)%n", s.tasks(), s.succeeded(), s.failed(), 3, s.skipped());
    System.out.printf("  attempts   %d run to an outcome (%d failed), %d retries, %d cancelled"
        + " by the drain or recovery%n", s.attempts(), s.failedAttempts(), s.retries(),
        s.cancelled());
    System.out.printf("  conflicts  %d commits lost the race for a revision and were retried%n",
        s.conflicts());
    long late = s.snapshots() - s.attempts();
    System.out.printf("  artifacts  %d snapshots frozen, one per finished attempt%s; %d blobs%n",
        s.snapshots(), late == 0 ? "" : " (and " + late + " of attempts cancelled after their"
            + " output was frozen)", s.blobs());
    report.kills().forEach(kill -> System.out.println("  killed     " + kill));
    recovered(report).forEach(line -> System.out.println("  recovered  " + line));
    System.out.printf("  journal    %d events, %d commits; replayed in %d pages%n",
        replay.events(), s.revision(), replay.pages());
    System.out.println("  ledger     " + dir);
    System.out.println("  exported   " + jsonl);
    System.out.printf("done in %.1f s%n", (System.nanoTime() - start) / 1e9);
  }

  /** One line per status recovered from: how many, how they ended, and which if few. */
  private static List<String> recovered(LocalOrchestrator.Report report) {
    Map<OperationStatus, List<Operation>> byStatus = new TreeMap<>();
    report.recovered().forEach(op ->
        byStatus.computeIfAbsent(op.status(), k -> new ArrayList<>()).add(op));
    List<String> lines = new ArrayList<>();
    byStatus.forEach((from, ops) -> {
      Map<String, Long> ends = new TreeMap<>();
      ops.forEach(op -> ends.merge(report.outcomes().get(op.id()).wireName(), 1L, Long::sum));
      List<String> parts = new ArrayList<>();
      ends.forEach((end, n) -> parts.add(n + " " + end));
      StringBuilder line = new StringBuilder().append(ops.size()).append(' ')
          .append(from.wireName()).append(" -> ").append(String.join(", ", parts));
      if (ops.size() <= 3) {
        line.append(" (").append(String.join(", ", ops.stream().map(Operation::id).toList()))
            .append(')');
      }
      lines.add(line.toString());
    });
    if (lines.isEmpty()) {
      lines.add("nothing to recover");
    }
    return lines;
  }

  private static JournalReplay.Result replay(Path dir, String out, PrintStream timeline,
      PrintStream notes) throws IOException {
    JournalReplay.Result result;
    if ("-".equals(out)) {
      result = JournalReplay.replay(dir, System.out);
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

  private static String option(List<String> args, String name, String fallback) {
    int i = args.indexOf(name);
    if (i < 0) {
      return fallback;
    }
    if (i + 1 >= args.size()) {
      usage(name + " needs a value");
    }
    String value = args.get(i + 1);
    args.subList(i, i + 2).clear();
    return value;
  }

  private static void usage(String problem) {
    System.err.println(problem);
    System.err.println("usage: Demo [--dir DIR] [--tasks N] [--seed S] [--threads T]");
    System.err.println("       Demo replay DIR [--out FILE|-]");
    System.exit(2);
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
