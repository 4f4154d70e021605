package dev.ledger.core.fs;

import dev.ledger.core.Change;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventFollower;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.Versioned;
import dev.ledger.core.memory.InMemoryLedgerStore;
import dev.ledger.testing.base.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Measures follow latency, from {@code commit} (here {@code update}) returning on the writer
 * to {@code next} returning the event on the follower (not a unit test; run it by hand):
 *
 * <ol>
 *   <li><b>in-process, file</b>: a writer thread and a follower thread on one
 *       {@link FileLedgerStore} (default options, SYNC): the commit signal wakes the follower;
 *   <li><b>in-process, memory</b>: the same on an {@link InMemoryLedgerStore};
 *   <li><b>cross-process</b>: a child JVM ({@link FollowWriter}) commits every 2 ms; this JVM
 *       follows through the journal directory's watch. Both sides read
 *       {@code System.nanoTime()}, one monotonic clock per machine on Linux.
 * </ol>
 * In-process, the writer waits for the follower to receive each event before the next commit,
 * so each sample is a wake-up from idle, not a queue. A negative latency means the follower
 * read the record before the writer's {@code force} returned (readers may see a commit a
 * moment before it is acknowledged); so each mode is also measured from the commit's call,
 * an upper bound. Prints median, p99, min and max in microseconds.
 *
 * <p>Arguments: [commits per mode, default 2000] [work directory, default a temp directory].
 */
public final class FollowLatency {
  private FollowLatency() {}

  public static void main(String[] args) throws Exception {
    int commits = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    Path work = args.length > 1 ? Path.of(args[1]) : Files.createTempDirectory("follow-latency");
    try (FileLedgerStore store = FileLedgerStore.open(work.resolve("in-process"))) {
      report("in-process, file", inProcess(store, commits));
    }
    try (InMemoryLedgerStore store = InMemoryLedgerStore.create()) {
      report("in-process, memory", inProcess(store, commits));
    }
    report("cross-process, file", crossProcess(work.resolve("cross-process"), commits));
  }

  private static long[][] inProcess(LedgerStore store, int commits) throws Exception {
    Ledger<Counter> ledger = store.ledger("latency", Counter.class);
    ledger.commit(Ledger.NO_REVISION, new Counter(0));
    long[] returned = new long[commits + 1];
    long[] called = new long[commits + 1];
    long[] received = new long[commits + 1];
    AtomicLong seen = new AtomicLong();
    try (EventFollower follower = ledger.follow(Cursor.START)) {
      Thread reader = new Thread(() -> {
        try {
          while (seen.get() < commits) {
            Optional<Event> event = follower.next(Duration.ofSeconds(30));
            if (event.isEmpty()) {
              throw new IllegalStateException("no event within 30 s after " + seen.get());
            }
            received[(int) event.get().sequence()] = System.nanoTime();
            seen.set(event.get().sequence());
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "latency-follower");
      reader.start();
      for (int i = 1; i <= commits; i++) {
        var event = Counter.incremented("writer", i);
        called[i] = System.nanoTime();
        Versioned<Counter> after = ledger.update(c -> Change.to(c.increment(), event));
        returned[(int) after.state().count()] = System.nanoTime();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (seen.get() < i) {
          if (System.nanoTime() > deadline || !reader.isAlive()) {
            throw new IllegalStateException("follower stuck at " + seen.get());
          }
          Thread.onSpinWait();
        }
      }
      reader.join();
    }
    return new long[][] {latencies(returned, received, commits),
        latencies(called, received, commits)};
  }

  private static long[][] crossProcess(Path base, int commits) throws Exception {
    long[] received = new long[commits + 1];
    long[] returned = new long[commits + 1];
    long[] called = new long[commits + 1];
    try (FileLedgerStore store = FileLedgerStore.open(base, FileLedgerMultiProcessTest.options())) {
      Ledger<Counter> ledger = store.ledger("latency", Counter.class);
      ledger.commit(Ledger.NO_REVISION, new Counter(0));
      try (EventFollower follower = ledger.follow(Cursor.START);
          ChildJvm child = ChildJvm.start(FollowWriter.class, base.toString(), "latency",
              "child", Integer.toString(commits), "2000")) {
        child.awaitLine("READY", Duration.ofSeconds(60));
        child.send("GO");
        for (int i = 1; i <= commits; i++) {
          Optional<Event> event = follower.next(Duration.ofSeconds(30));
          if (event.isEmpty()) {
            throw new IllegalStateException("no event within 30 s: " + child.describe());
          }
          received[(int) event.get().sequence()] = System.nanoTime();
        }
        if (child.awaitExit(Duration.ofSeconds(60)) != 0) {
          throw new IllegalStateException(child.describe());
        }
        for (String line : child.lines()) {
          if (line.startsWith("COMMITTED ")) {
            String[] parts = line.split(" ");
            returned[Integer.parseInt(parts[1])] = Long.parseLong(parts[2]);
            called[Integer.parseInt(parts[1])] = Long.parseLong(parts[3]);
          }
        }
      }
    }
    return new long[][] {latencies(returned, received, commits),
        latencies(called, received, commits)};
  }

  private static long[] latencies(long[] returned, long[] received, int commits) {
    // The first 10% warm up the JIT and the page cache; they are not counted.
    int skip = commits / 10;
    long[] micros = new long[commits - skip];
    for (int i = skip + 1; i <= commits; i++) {
      micros[i - skip - 1] = (received[i] - returned[i]) / 1000;
    }
    Arrays.sort(micros);
    return micros;
  }

  private static void report(String mode, long[][] both) {
    report(mode + ", from return", both[0]);
    report(mode + ", from call", both[1]);
  }

  private static void report(String mode, long[] sorted) {
    long median = sorted[sorted.length / 2];
    long p99 = sorted[(int) Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
    System.out.printf("%-36s n=%d  median %d us  p99 %d us  min %d us  max %d us%n", mode,
        sorted.length, median, p99, sorted[0], sorted[sorted.length - 1]);
  }
}
