package dev.ledger.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Runs every comparison in one process on one disk and prints the table as Markdown.
 *
 * <pre>
 * --smoke              smallest sizes, one round (seconds; what the build runs)
 * --rounds N           measured rounds (after one warm-up round)
 * --scenarios 1,2,...  run only these scenarios
 * --ledgers N          ledgers of scenario 9 (default 100,000; smoke 200)
 * --docs N             documents of scenario 12's large partition (default 100,000)
 * --runs N             runs of scenario 13's large registry (default 100,000)
 * --dir PATH           scratch directory for the stores (default target/bench-data);
 *                      deleted before and after the run
 * --out PATH           where the Markdown table goes (default target/bench.md)
 * --publish            also write it to PERFORMANCE.md in the working directory
 * </pre>
 */
public final class Bench {
  private Bench() {}

  /** Parses the flags above, runs, prints and writes the table. */
  public static void main(String[] args) throws Exception {
    Path dir = Path.of("target", "bench-data");
    Path out = Path.of("target", "bench.md");
    boolean smoke = false;
    boolean publish = false;
    Integer rounds = null;
    Integer manyLedgers = null;
    Integer docs = null;
    Integer runs = null;
    Set<Integer> scenarios = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--smoke" -> smoke = true;
        case "--publish" -> publish = true;
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--ledgers" -> manyLedgers = Integer.parseInt(args[++i]);
        case "--docs" -> docs = Integer.parseInt(args[++i]);
        case "--runs" -> runs = Integer.parseInt(args[++i]);
        case "--dir" -> dir = Path.of(args[++i]);
        case "--out" -> out = Path.of(args[++i]);
        case "--scenarios" -> {
          scenarios = new TreeSet<>();
          for (String s : args[++i].split(",")) {
            scenarios.add(Integer.parseInt(s.trim()));
          }
        }
        default -> throw new IllegalArgumentException("unknown flag " + args[i]
            + "; flags: --smoke --rounds N --scenarios 1,2 --ledgers N --docs N --runs N --dir PATH --out PATH"
            + " --publish");
      }
    }
    BenchConfig config = smoke ? BenchConfig.smoke(dir) : BenchConfig.full(dir);
    if (rounds != null) {
      config = config.withRounds(rounds);
    }
    if (scenarios != null) {
      config = config.withScenarios(scenarios);
    }
    if (manyLedgers != null) {
      config = config.withManyLedgers(manyLedgers);
    }
    if (docs != null) {
      config = config.withCollectionDocs(docs);
    }
    if (runs != null) {
      config = config.withRegistryRuns(runs);
    }
    String md = run(config, smoke ? "smoke" : "full");
    System.out.println(md);
    write(out, md);
    if (publish) {
      write(Path.of("PERFORMANCE.md"), "# Performance\n\nProduced by `./run-bench --publish`"
          + " (see README, \"Performance\").\n\n" + md);
    }
  }

  /** Runs the configured scenarios and returns the Markdown report. */
  static String run(BenchConfig config, String label) throws Exception {
    ScratchFiles.deleteTree(config.dir());
    Files.createDirectories(config.dir());
    Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    String fileSystem = fileSystem(config.dir());
    String loadBefore = loadAverage();
    long t0 = System.nanoTime();
    Report report = new Report();
    Set<Integer> s = config.scenarios();
    try {
      if (s.contains(1)) {
        progress("1 single ledger");
        SingleLedgerScenario.run(config, report);
      }
      History history = null;
      if (s.contains(2) || s.contains(3) || s.contains(6) || s.contains(8)) {
        progress("building histories " + config.histories());
        history = History.build(config);
      }
      if (s.contains(2)) {
        progress("2 history");
        HistoryScenario.run(config, history, report);
      }
      if (s.contains(3)) {
        progress("3 paging and replay");
        PagingScenario.run(config, history, report);
      }
      if (s.contains(4)) {
        progress("4 large state");
        LargeStateScenario.run(config, report);
      }
      if (s.contains(5)) {
        progress("5 concurrency");
        ConcurrencyScenario.run(config, report);
      }
      if (s.contains(6)) {
        progress("6 open time");
        OpenTimeScenario.run(config, history, report);
      }
      if (s.contains(7)) {
        progress("7 artifacts");
        ArtifactScenario.run(config, report);
      }
      if (s.contains(8)) {
        progress("8 verify");
        VerifyScenario.run(config, history, report);
      }
      if (s.contains(9)) {
        progress("9 many ledgers (" + config.manyLedgers() + ")");
        ManyLedgersScenario.run(config, report);
      }
      if (s.contains(10)) {
        progress("10 follow latency");
        FollowLatencyScenario.run(config, report);
      }
      if (s.contains(12)) {
        progress("12 collections");
        CollectionScenario.run(config, report);
      }
      if (s.contains(13)) {
        progress("13 run registry (" + config.registryRuns() + " runs)");
        RegistryScenario.run(config, report);
      }
      if (s.contains(11)) {
        progress("11 PostgreSQL");
        PostgresScenario.run(config, report);
      }
    } finally {
      ScratchFiles.deleteTree(config.dir());
    }
    double minutes = (System.nanoTime() - t0) / 60e9;
    String header = String.format(Locale.ROOT,
        "## Benchmark run %s UTC (%s configuration)%n%n"
            + "- machine: %d cores visible to the JVM (%s), %s %s, Java %s%n"
            + "- file system of the stores: %s%n"
            + "- load average before / after: %s / %s; the run took %.1f min%n"
            + "- %d measured rounds after one warm-up; rounds of %d ms; scenarios %s%n",
        started, label, Runtime.getRuntime().availableProcessors(), cpuModel(),
        System.getProperty("os.name"), System.getProperty("os.version"),
        System.getProperty("java.version"), fileSystem, loadBefore, loadAverage(), minutes, config.rounds(),
        config.roundMillis(), config.scenarios().stream().sorted().toList());
    return report.markdown(header);
  }

  private static void progress(String what) {
    System.err.println("[bench " + Instant.now().truncatedTo(ChronoUnit.SECONDS) + "] " + what);
  }

  private static void write(Path file, String text) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    Files.createDirectories(parent);
    Files.writeString(file, text, StandardCharsets.UTF_8);
  }

  private static String loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      return String.join(" ", Arrays.copyOf(parts, 3));
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  /**
   * The type, device and mount options of the file system holding {@code dir} (the mount
   * options from /proc/mounts, where the kernel has it): a force costs what its journal mode
   * and barriers make it cost.
   */
  static String fileSystem(Path dir) {
    try {
      java.nio.file.FileStore store = Files.getFileStore(dir);
      String options = "";
      Path mounts = Path.of("/proc/mounts");
      if (Files.isReadable(mounts)) {
        for (String line : Files.readAllLines(mounts)) {
          String[] f = line.split(" ");
          if (f.length >= 4 && f[0].equals(store.name()) && f[2].equals(store.type())) {
            options = ", mounted " + f[3];
            break;
          }
        }
      }
      return store.type() + " on " + store.name() + options;
    } catch (IOException | RuntimeException e) {
      return "unknown (" + e + ")";
    }
  }

  private static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException | RuntimeException e) {
      return "unknown CPU";
    }
    return "unknown CPU";
  }
}
