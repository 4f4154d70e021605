package dev.ledger.bench;

import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventFollower;
import dev.ledger.core.Ledger;
import dev.ledger.core.fs.FileLedgerStore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Scenario 10: follow latency, from {@code commit} returning on the writer to
 * {@code EventFollower.next} returning the event, on a file store with default (durable)
 * options. In-process: a writer thread and a follower thread on one store, the writer waiting
 * for each event to arrive before its next commit (each sample is a wake-up from idle).
 * Across processes: a child JVM ({@link FollowWriterChild}) commits every 2 ms and prints
 * when each commit returned; this JVM follows through the journal directory's watch. Both
 * read {@code System.nanoTime()}, one monotonic clock per machine on Linux. The first 10% of
 * samples warm up and are not counted. A negative sample means the follower read the
 * record before the writer's force returned (readers see a commit a moment before it is
 * acknowledged); so each mode is also measured from the commit's call, an upper bound.
 */
final class FollowLatencyScenario {
  static final String NAME = "10. Follow latency";
  private static final Duration WAIT = Duration.ofSeconds(60);

  private FollowLatencyScenario() {}

  static void run(BenchConfig config, Report report) throws Exception {
    int commits = config.followCommits();
    long[][] in = inProcess(config.dir().resolve("s10-in"), commits);
    long[][] across = crossProcess(config.dir().resolve("s10-across"), commits);
    row(report, "in-process, from commit return", in[0]);
    row(report, "in-process, from commit call", in[1]);
    row(report, "across processes (journal watch), from commit return", across[0]);
    row(report, "across processes (journal watch), from commit call", across[1]);
    report.ratio(NAME, "in-process median latency, ms", percentile(in[0], 0.5) / 1000.0,
        Report.Goal.AT_MOST, 1.0, "from commit return");
    report.note(String.format(java.util.Locale.ROOT, "Scenario 10: %d commits per mode, the "
        + "first %d not counted; cross-process writer pauses 2 ms between commits.", commits,
        commits / 10));
  }

  private static void row(Report report, String mode, long[] micros) {
    report.stats(NAME, mode + ", median", "us").add(percentile(micros, 0.5));
    report.stats(NAME, mode + ", p99", "us").add(percentile(micros, 0.99));
  }

  private static long[][] inProcess(Path base, int commits) throws Exception {
    long[] called = new long[commits + 1];
    long[] returned = new long[commits + 1];
    long[] received = new long[commits + 1];
    AtomicLong seen = new AtomicLong();
    try (FileLedgerStore store = FileLedgerStore.open(base)) {
      Ledger<Workload.BenchState> ledger = store.ledger("follow", Workload.BenchState.class);
      long revision = ledger.commit(Ledger.NO_REVISION, Workload.state(0)).revision();
      try (EventFollower follower = ledger.follow(Cursor.START)) {
        Thread reader = new Thread(() -> {
          try {
            while (seen.get() < commits) {
              Optional<Event> event = follower.next(WAIT);
              if (event.isEmpty()) {
                return;
              }
              received[(int) event.get().sequence()] = System.nanoTime();
              seen.set(event.get().sequence());
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }, "bench-follower");
        reader.start();
        for (int i = 1; i <= commits; i++) {
          called[i] = System.nanoTime();
          revision = ledger.commit(revision, Workload.state(i), Workload.event(i)).revision();
          returned[i] = System.nanoTime();
          long deadline = System.nanoTime() + WAIT.toNanos();
          while (seen.get() < i) {
            // The reader ends once it has seen the last commit: only a reader that ended (or
            // timed out) short of this commit is stuck, so look at what it saw once more.
            if ((System.nanoTime() > deadline || !reader.isAlive()) && seen.get() < i) {
              throw new IllegalStateException("in-process follower stuck at " + seen.get());
            }
            Thread.onSpinWait();
          }
        }
        reader.join();
      }
    }
    return new long[][] {latencies(returned, received, commits),
        latencies(called, received, commits)};
  }

  private static long[][] crossProcess(Path base, int commits) throws Exception {
    long[] called = new long[commits + 1];
    long[] returned = new long[commits + 1];
    long[] received = new long[commits + 1];
    try (FileLedgerStore store = FileLedgerStore.open(base)) {
      Ledger<Workload.BenchState> ledger = store.ledger("follow", Workload.BenchState.class);
      ledger.commit(Ledger.NO_REVISION, Workload.state(0));
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.add("-Xmx64m");
      command.add("-cp");
      command.add(System.getProperty("java.class.path"));
      command.add(FollowWriterChild.class.getName());
      command.addAll(List.of(base.toString(), "follow", Integer.toString(commits), "2000"));
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      List<String> output = new ArrayList<>();
      try (EventFollower follower = ledger.follow(Cursor.START);
          BufferedReader out = new BufferedReader(new InputStreamReader(
              process.getInputStream(), StandardCharsets.UTF_8));
          OutputStream toChild = process.getOutputStream()) {
        String line = out.readLine();
        if (!"READY".equals(line)) {
          throw new IllegalStateException("follow writer child: " + line);
        }
        Thread drain = new Thread(() -> {
          try {
            String l;
            while ((l = out.readLine()) != null) {
              synchronized (output) {
                output.add(l);
              }
            }
          } catch (java.io.IOException e) {
            // the child is gone; its exit code tells
          }
        }, "bench-child-output");
        drain.start();
        toChild.write("GO\n".getBytes(StandardCharsets.US_ASCII));
        toChild.flush();
        for (int i = 1; i <= commits; i++) {
          Optional<Event> event = follower.next(WAIT);
          if (event.isEmpty()) {
            throw new IllegalStateException("no event within " + WAIT + "; child: " + output);
          }
          received[(int) event.get().sequence()] = System.nanoTime();
        }
        if (process.waitFor() != 0) {
          throw new IllegalStateException("follow writer child failed: " + output);
        }
        drain.join();
      } finally {
        process.destroyForcibly();
      }
      for (String line : output) {
        if (line.startsWith("COMMITTED ")) {
          String[] parts = line.split(" ");
          returned[Integer.parseInt(parts[1])] = Long.parseLong(parts[2]);
          called[Integer.parseInt(parts[1])] = Long.parseLong(parts[3]);
        }
      }
    }
    return new long[][] {latencies(returned, received, commits),
        latencies(called, received, commits)};
  }

  /** Microseconds from return to receipt, sorted, without the first 10%. */
  private static long[] latencies(long[] returned, long[] received, int commits) {
    int skip = commits / 10;
    long[] micros = new long[commits - skip];
    for (int i = skip + 1; i <= commits; i++) {
      micros[i - skip - 1] = (received[i] - returned[i]) / 1000;
    }
    Arrays.sort(micros);
    return micros;
  }

  private static double percentile(long[] sorted, double p) {
    int index = (int) Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * p) - 1));
    return sorted[index];
  }
}
