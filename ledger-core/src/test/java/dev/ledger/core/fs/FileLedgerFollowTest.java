package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.core.Change;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventFollower;
import dev.ledger.core.Ledger;
import dev.ledger.testing.base.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What only a file store's follower faces: commits of other processes (child JVM writers,
 * one of them killed mid-run) and of other store instances on the same directory (a writer
 * restarted in this process), seen through the journal directory's watch, and the JVM-wide
 * watcher letting go of its thread when the last follower closes.
 */
class FileLedgerFollowTest {
  private static final Duration DEADLINE = Duration.ofSeconds(60);

  @TempDir
  Path dir;

  private final ExecutorService consumer = Executors.newSingleThreadExecutor();

  @AfterEach
  void stopConsumer() throws InterruptedException {
    consumer.shutdownNow();
    consumer.awaitTermination(30, TimeUnit.SECONDS);
  }

  /** Collects a follower's events on the consumer thread until {@code stop} is set. */
  private Future<?> collect(EventFollower follower, List<Event> into, AtomicBoolean stop) {
    return consumer.submit(() -> {
      while (!stop.get()) {
        Optional<Event> next = follower.next(Duration.ofMillis(100));
        next.ifPresent(into::add);
      }
      return null;
    });
  }

  private static void awaitTrue(String what, BooleanSupplier condition, Future<?> collector)
      throws Exception {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (!condition.getAsBoolean()) {
      if (collector != null && collector.isDone()) {
        collector.get(); // rethrows the collector's failure
        throw new AssertionError("collector ended before: " + what);
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + DEADLINE + ": " + what);
      }
      Thread.onSpinWait();
      Thread.yield();
    }
  }

  @Test
  void aFollowerSeesOtherProcessesCommitsOnceInOrderAcrossWriterKillsAndRestarts()
      throws Exception {
    Path base = dir.resolve("store");
    List<Event> followed = Collections.synchronizedList(new ArrayList<>());
    List<String> acknowledged = new ArrayList<>();
    AtomicBoolean stop = new AtomicBoolean();
    try (FileLedgerStore store = FileLedgerStore.open(base, FileLedgerMultiProcessTest.options());
        EventFollower follower = store.ledger("shared", Counter.class).follow(Cursor.START, 16)) {
      Ledger<Counter> ledger = store.ledger("shared", Counter.class);
      ledger.commit(Ledger.NO_REVISION, new Counter(0));
      Future<?> collector = collect(follower, followed, stop);
      for (int generation = 0; generation < 3; generation++) {
        String writer = "w" + generation;
        try (ChildJvm child = ChildJvm.start(FollowWriter.class, base.toString(), "shared",
            writer, "80", "0")) {
          child.awaitLine("READY", DEADLINE);
          child.send("GO");
          if (generation == 1) {
            // Killed mid-run, once the follower has seen some of its commits.
            awaitTrue("20 events of " + writer, () -> count(followed, writer) >= 20,
                collector);
            child.kill();
          } else {
            assertThat(child.awaitExit(DEADLINE)).as(child.describe()).isZero();
          }
          for (String line : child.lines()) {
            if (line.startsWith("COMMITTED ")) {
              acknowledged.add(writer + ":" + line.split(" ")[1]);
            }
          }
        }
      }
      long total = ledger.load().state().count();
      awaitTrue("every committed event followed", () -> followed.size() >= total, collector);
      stop.set(true);
      collector.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
      List<Event> journal = Counter.journal(ledger);
      assertThat(journal).hasSize((int) total);
      assertThat(followed).extracting(Event::sequence)
          .containsExactlyElementsOf(LongStream.rangeClosed(1, total).boxed().toList());
      assertThat(followed).isEqualTo(journal);
      for (String ack : acknowledged) {
        long sequence = Long.parseLong(ack.substring(ack.indexOf(':') + 1));
        assertThat(Counter.step(followed.get((int) sequence - 1)))
            .as("acknowledged commit %s", ack).startsWith(ack.substring(0, ack.indexOf(':')));
      }
      assertThat(count(followed, "w0")).isEqualTo(80);
      assertThat(count(followed, "w2")).isEqualTo(80);
    }
  }

  private static long count(List<Event> events, String writer) {
    synchronized (events) {
      return events.stream()
          .filter(e -> e.payload().get("writer").asText().equals(writer)).count();
    }
  }

  @Test
  void aReadOnlyFollowerSeesAnotherStoreInstanceThroughRestartsAndRolls() throws Exception {
    Path base = dir.resolve("store");
    FileLedgerStore first = FileLedgerStore.open(base, FileLedgerMultiProcessTest.options());
    Ledger<Counter> ledger = first.ledger("restarted", Counter.class);
    ledger.commit(Ledger.NO_REVISION, new Counter(0));
    List<Event> followed = Collections.synchronizedList(new ArrayList<>());
    AtomicBoolean stop = new AtomicBoolean();
    try (FileLedgerStore reader = FileLedgerStore.openReadOnly(base);
        EventFollower follower = reader.ledger("restarted", Counter.class)
            .follow(Cursor.START, 8)) {
      Future<?> collector = collect(follower, followed, stop);
      int total = 0;
      for (int restart = 0; restart < 3; restart++) {
        FileLedgerStore writer = restart == 0 ? first
            : FileLedgerStore.open(base, FileLedgerMultiProcessTest.options());
        try (writer) {
          Ledger<Counter> written = writer.ledger("restarted", Counter.class);
          for (int step = 0; step < 50; step++) {
            var event = Counter.incremented("store" + restart, step);
            written.update(c -> Change.to(c.increment(), event));
            total++;
            int expected = total;
            // Each commit reaches the follower while this writer is still open and idle.
            awaitTrue("event " + expected, () -> followed.size() >= expected, collector);
          }
        }
      }
      stop.set(true);
      collector.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
      assertThat(followed).extracting(Event::sequence)
          .containsExactlyElementsOf(LongStream.rangeClosed(1, total).boxed().toList());
      assertThat(followed).isEqualTo(Counter.journal(reader.ledger("restarted", Counter.class)));
      try (Stream<Path> files = Files.list(base.resolve("ledgers/restarted/journal"))) {
        assertThat(files.filter(f -> f.getFileName().toString().matches("\\d{20}\\.jsonl")))
            .as("segments rolled while followed").hasSizeGreaterThan(3);
      }
    }
  }

  @Test
  void aLedgerCreatedLaterByAnotherStoreIsFollowedFromItsFirstCommit() throws Exception {
    Path base = dir.resolve("store");
    try (FileLedgerStore following = FileLedgerStore.open(base);
        FileLedgerStore writing = FileLedgerStore.open(base);
        EventFollower follower = following.ledger("late", Counter.class).follow(Cursor.START)) {
      // No journal directory yet: the follower polls until one appears, then watches it.
      assertThat(follower.next(Duration.ofMillis(30))).isEmpty();
      Ledger<Counter> ledger = writing.ledger("late", Counter.class);
      ledger.commit(Ledger.NO_REVISION, new Counter(1), Counter.incremented("other", 0));
      assertThat(follower.next(DEADLINE)).hasValueSatisfying(
          e -> assertThat(Counter.step(e)).isEqualTo("other/0"));
      ledger.update(c -> Change.to(c.increment(), Counter.incremented("other", 1)));
      assertThat(follower.next(DEADLINE)).hasValueSatisfying(
          e -> assertThat(e.sequence()).isEqualTo(2));
    }
  }

  @Test
  void theWatcherThreadEndsWithTheLastFollower() throws Exception {
    Path base = dir.resolve("store");
    try (FileLedgerStore store = FileLedgerStore.open(base)) {
      Ledger<Counter> ledger = store.ledger("watched", Counter.class);
      ledger.commit(Ledger.NO_REVISION, new Counter(0));
      EventFollower one = ledger.follow(Cursor.START);
      EventFollower two = ledger.follow(Cursor.START);
      // Each waits, which registers the watch. A follower waits only if reading the journal
      // left time of its timeout (1 ms was once used up by the read on a loaded machine).
      assertThat(one.next(Duration.ofMillis(200))).isEmpty();
      assertThat(two.next(Duration.ofMillis(200))).isEmpty();
      assertThat(JournalWatcher.INSTANCE.running()).isTrue();
      assertThat(watcherThreads()).isEqualTo(1);
      one.close();
      assertThat(JournalWatcher.INSTANCE.running()).isTrue();
      two.close();
      assertThat(JournalWatcher.INSTANCE.running()).isFalse();
      awaitTrue("the watcher thread ended", () -> watcherThreads() == 0, null);
    }
  }

  private static long watcherThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().equals(JournalWatcher.THREAD_NAME)).count();
  }
}
