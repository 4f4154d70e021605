package dev.ledger.core.fault;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.core.Change;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.Versioned;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.testing.fault.FaultyFileSystem;
import dev.ledger.testing.fault.Op;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Group commit's acknowledgement order, checked at the moment of each acknowledgement: threads
 * of one store race {@code update}s on one ledger over a {@link FaultyFileSystem}, and as soon
 * as an update returns revision r, the thread asks the file system what a power cut at that
 * instant would be sure to keep of the journal ({@link FaultyFileSystem#forcedContent}); its
 * complete lines must reach revision r (one line per commit, revision 1 the first). An update
 * acknowledged before the force that covers its record fails this, whatever a later force
 * does. The counts of forces and acknowledgements show whether forces were shared.
 */
class GroupCommitAcknowledgementTest {
  private static final int SCALE = Integer.getInteger("ledger.torture.scale", 1);
  private static final int THREADS = 8;
  private static final int UPDATES_EACH = 25 * SCALE;

  @TempDir
  Path tmp;

  record Counter(int value) {}

  @Test
  void noUpdateIsAcknowledgedBeforeAForceCoversItsRecord() throws Exception {
    FaultyFileSystem fs = FaultyFileSystem.over(tmp);
    Path root = fs.root().resolve("store");
    // One segment (the default size), no checkpoint in the run: the journal is one file.
    LedgerOptions options = LedgerOptions.defaults()
        .withCheckpointInterval(100_000)
        .withUpdateRetry(1000, Duration.ZERO);
    ConcurrentLinkedQueue<String> early = new ConcurrentLinkedQueue<>();
    long forcesBefore;
    try (FileLedgerStore store = FileLedgerStore.open(root, options)) {
      Ledger<Counter> ledger = store.ledger("acked", Counter.class);
      ledger.commit(Ledger.NO_REVISION, new Counter(0), EventDraft.of("init", Map.of()));
      Path segment = onlySegment(FaultyFileSystem.real(root));
      forcesBefore = fs.count(Op.FORCE);
      ExecutorService pool = Executors.newFixedThreadPool(THREADS);
      try {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
          int thread = t;
          workers.add(pool.submit(() -> {
            start.await();
            for (int k = 0; k < UPDATES_EACH; k++) {
              int kk = k;
              Versioned<Counter> after = ledger.update(c -> Change.to(
                  new Counter(c.value() + 1), EventDraft.of("inc", Map.of("t", thread,
                      "k", kk))));
              long lines = completeLines(fs.forcedContent(segment));
              if (lines < after.revision()) {
                early.add("revision " + after.revision() + " acknowledged with " + lines
                    + " records forced");
              }
            }
            return null;
          }));
        }
        start.countDown();
        for (Future<?> worker : workers) {
          worker.get(2, TimeUnit.MINUTES);
        }
      } finally {
        pool.shutdownNow();
      }
      int total = THREADS * UPDATES_EACH;
      assertThat(ledger.load().revision()).isEqualTo(total + 1L);
      assertThat(early).as("acknowledged before forced").isEmpty();
      long forces = fs.count(Op.FORCE) - forcesBefore;
      System.out.printf("GroupCommitAcknowledgementTest: %d updates acknowledged, %d forces"
          + " (%.2f per update)%n", total, forces, (double) forces / total);
      assertThat(forces).as("forces for %s updates", total).isBetween(1L, (long) total + 8);
    }
  }

  private static Path onlySegment(Path store) throws Exception {
    try (Stream<Path> files = Files.walk(store.resolve("ledgers"))) {
      List<Path> segments = files.filter(p -> p.toString().endsWith(".jsonl")).toList();
      assertThat(segments).hasSize(1);
      return segments.get(0);
    }
  }

  private static long completeLines(byte[] content) {
    long lines = 0;
    for (byte b : content) {
      if (b == '\n') {
        lines++;
      }
    }
    return lines;
  }
}
