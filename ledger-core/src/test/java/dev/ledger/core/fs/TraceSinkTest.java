package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.core.Change;
import dev.ledger.core.Cursor;
import dev.ledger.core.Durability;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.internal.json.LedgerJson;
import dev.ledger.core.memory.InMemoryLedgerStore;
import dev.ledger.testing.fault.FaultyFileSystem;
import dev.ledger.testing.fault.Op;
import dev.ledger.testing.fault.Persistence;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The best-effort trace mirror: order, a failing disk, a full queue. */
class TraceSinkTest {
  @TempDir
  Path dir;

  record Count(long n) {}

  private static List<JsonNode> lines(Path file) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      out.add(LedgerJson.parse(line.getBytes(StandardCharsets.UTF_8)));
    }
    return out;
  }

  @Test
  void linesAppearInCommitOrderForOneRootUnderRacingWriters() throws Exception {
    int threads = 4;
    int perThread = 40;
    try (TraceSink sink = TraceSink.open(dir.resolve("trace"));
        FileLedgerStore store = FileLedgerStore.open(dir.resolve("store"),
            LedgerOptions.defaults().withDurability(Durability.UNSAFE_NO_SYNC))) {
      store.addCommitListener(sink);
      Ledger<Count> ledger = store.ledger("run-1", Count.class);
      ledger.commit(Ledger.NO_REVISION, new Count(0), EventDraft.of("start", Map.of()));
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int id = t;
        done.add(pool.submit(() -> {
          for (int i = 0; i < perThread; i++) {
            int step = i;
            ledger.update(c -> Change.to(new Count(c.n() + 1),
                EventDraft.of("inc", Map.of("writer", id, "step", step))));
          }
        }));
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
      pool.shutdown();
      assertThat(sink.awaitIdle(Duration.ofSeconds(30))).isTrue();
      List<JsonNode> lines = lines(sink.file("run-1"));
      int commits = 1 + threads * perThread;
      assertThat(lines).hasSize(commits);
      for (int i = 0; i < lines.size(); i++) {
        JsonNode line = lines.get(i);
        assertThat(line.get("revision").asLong()).isEqualTo(i + 1);
        assertThat(line.get("root").asText()).isEqualTo("run-1");
        assertThat(line.get("format").asInt()).isEqualTo(1);
        assertThat(line.at("/events/0/sequence").asLong()).isEqualTo(i + 1);
      }
      // The mirror says what the journal says.
      List<Event> events = ledger.events(Cursor.START, 1000).events();
      for (int i = 0; i < events.size(); i++) {
        assertThat(lines.get(i).at("/events/0/id").asText()).isEqualTo(events.get(i).id());
        assertThat(lines.get(i).at("/events/0/payload")).isEqualTo(events.get(i).payload());
      }
      assertThat(sink.written()).isEqualTo(commits);
      assertThat(sink.dropped()).isZero();
      assertThat(sink.failed()).isZero();
    }
  }

  @Test
  void replaysAndRemovedListenersWriteNothing() throws Exception {
    try (TraceSink sink = TraceSink.open(dir.resolve("trace"));
        InMemoryLedgerStore store = InMemoryLedgerStore.create()) {
      store.addCommitListener(sink);
      Ledger<Count> ledger = store.ledger("m", Count.class);
      ledger.commit(0, new Count(1), EventDraft.of("e", Map.of()).withCommandId("c1"));
      ledger.commit(0, new Count(1), EventDraft.of("e", Map.of()).withCommandId("c1"));
      assertThat(store.removeCommitListener(sink)).isTrue();
      ledger.commit(1, new Count(2), EventDraft.of("e", Map.of()));
      assertThat(sink.awaitIdle(Duration.ofSeconds(30))).isTrue();
      assertThat(lines(sink.file("m"))).extracting(l -> l.get("revision").asLong())
          .containsExactly(1L);
    }
  }

  @Test
  void aFailingDiskNeverFailsACommitAndTheSinkRecoversWhenItHeals() throws Exception {
    Path real = Files.createDirectories(dir.resolve("faulty"));
    FaultyFileSystem fs = FaultyFileSystem.over(real);
    try (TraceSink sink = TraceSink.open(fs.root().resolve("trace"));
        FileLedgerStore store = FileLedgerStore.open(dir.resolve("store"),
            LedgerOptions.defaults().withDurability(Durability.UNSAFE_NO_SYNC))) {
      store.addCommitListener(sink);
      Ledger<Count> ledger = store.ledger("f", Count.class);
      ledger.commit(0, new Count(1), EventDraft.of("e", Map.of()));
      assertThat(sink.awaitIdle(Duration.ofSeconds(30))).isTrue();
      fs.failAt(Op.WRITE, 1, Persistence.PERSISTENT);
      for (int n = 2; n <= 20; n++) {
        ledger.commit(n - 1, new Count(n), EventDraft.of("e", Map.of()));
      }
      assertThat(sink.awaitIdle(Duration.ofSeconds(30))).isTrue();
      assertThat(ledger.load().revision()).isEqualTo(20);
      assertThat(sink.failed()).isEqualTo(19);
      fs.clearFaults();
      ledger.commit(20, new Count(21), EventDraft.of("e", Map.of()));
      assertThat(sink.awaitIdle(Duration.ofSeconds(30))).isTrue();
      assertThat(lines(sink.file("f"))).extracting(l -> l.get("revision").asLong())
          .containsExactly(1L, 21L);
      assertThat(sink.written()).isEqualTo(2);
    }
  }

  @Test
  void aDirectoryThatCannotBeCreatedCountsFailuresAndCommitsGoOn() throws Exception {
    Path blocked = Files.writeString(dir.resolve("a-file"), "not a directory");
    try (TraceSink sink = TraceSink.open(blocked.resolve("trace"));
        InMemoryLedgerStore store = InMemoryLedgerStore.create()) {
      store.addCommitListener(sink);
      Ledger<Count> ledger = store.ledger("x", Count.class);
      for (int n = 1; n <= 10; n++) {
        ledger.commit(n - 1, new Count(n), EventDraft.of("e", Map.of()));
      }
      assertThat(sink.awaitIdle(Duration.ofSeconds(30))).isTrue();
      assertThat(ledger.load().revision()).isEqualTo(10);
      assertThat(sink.failed()).isEqualTo(10);
      assertThat(sink.written()).isZero();
    }
  }

  @Test
  void aFullQueueDropsAndCountsWithoutBlockingTheCommit() throws Exception {
    Path traceDir = Files.createDirectories(dir.resolve("trace"));
    int capacity = 4;
    try (TraceSink sink = TraceSink.open(traceDir, capacity);
        InMemoryLedgerStore store = InMemoryLedgerStore.create()) {
      // The writer thread blocks opening a FIFO nobody reads: the queue can only fill.
      Path fifo = sink.file("q");
      Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
      assumeTrue(mkfifo.waitFor(30, TimeUnit.SECONDS) && mkfifo.exitValue() == 0,
          "mkfifo is available");
      store.addCommitListener(sink);
      Ledger<Count> ledger = store.ledger("q", Count.class);
      int commits = 50;
      ledger.commit(0, new Count(1), EventDraft.of("e", Map.of()));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (sink.queued() > 0) {
        assertThat(System.nanoTime()).as("writer took the first line").isLessThan(deadline);
        Thread.onSpinWait();
      }
      // The writer holds line 1 and is stuck opening the FIFO: the queue takes 4 more.
      long started = System.nanoTime();
      for (int n = 2; n <= commits; n++) {
        ledger.commit(n - 1, new Count(n), EventDraft.of("e", Map.of()));
      }
      long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      assertThat(sink.queued()).isEqualTo(capacity);
      assertThat(sink.dropped()).as("dropped").isEqualTo(commits - capacity - 1);
      assertThat(ledger.load().revision()).isEqualTo(commits);
      // Unblock the writer: read the FIFO to its end.
      List<String> read = new ArrayList<>();
      Thread reader = new Thread(() -> {
        try (InputStream in = Files.newInputStream(fifo)) {
          read.add(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
          read.add("error " + e);
        }
      });
      reader.start();
      assertThat(sink.awaitIdle(Duration.ofSeconds(30))).isTrue();
      assertThat(sink.written() + sink.dropped()).isEqualTo(commits);
      sink.close(); // closes the FIFO, so the reader sees its end
      reader.join(TimeUnit.SECONDS.toMillis(30));
      assertThat(read).hasSize(1);
      assertThat(read.get(0).lines().count()).isEqualTo(sink.written());
      System.out.printf("trace sink: %d commits with the writer blocked took %d ms; "
          + "%d lines dropped, %d written%n", commits, tookMillis, sink.dropped(),
          sink.written());
    }
  }
}
