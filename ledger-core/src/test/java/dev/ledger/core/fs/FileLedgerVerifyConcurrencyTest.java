package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.VerifyReport;
import dev.ledger.core.fs.VerifyFixture.Counter;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A verify racing a writer never reports the writer's commits as damage. */
class FileLedgerVerifyConcurrencyTest {
  @TempDir
  Path dir;

  @Test
  void commitsRacingTheVerifyAreNotDamage() throws Exception {
    // Small segments and frequent checkpoints: the verify meets rolls, checkpoint and
    // command index writes, and appends in progress.
    LedgerOptions options = LedgerOptions.defaults().withSegmentBytes(4096)
        .withCheckpointInterval(3);
    int commits = 300;
    try (FileLedgerStore writerStore = FileLedgerStore.open(dir, options);
        FileLedgerStore verifierStore = FileLedgerStore.openReadOnly(dir)) {
      Ledger<Counter> ledger = writerStore.ledger("root-1", Counter.class);
      ledger.commit(0, new Counter(0, "x"), EventDraft.of("inc", Map.of("to", 0)));
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread writer = new Thread(() -> {
        try {
          for (int i = 1; i <= commits; i++) {
            ledger.commit(i, new Counter(i, "x".repeat(i % 7)),
                EventDraft.of("inc", Map.of("to", i)).withCommandId("c-" + i));
          }
        } catch (Throwable t) {
          failure.set(t);
        }
      });
      writer.start();
      int runs = 0;
      long lastRecords = 0;
      while (writer.isAlive() || runs < 3) {
        VerifyReport report = (runs % 2 == 0 ? verifierStore : writerStore).verify();
        assertThat(report.damage()).as("run %s", runs).isEmpty();
        assertThat(report.records()).isGreaterThanOrEqualTo(lastRecords);
        lastRecords = report.records();
        runs++;
      }
      writer.join();
      assertThat(failure.get()).isNull();
      VerifyReport last = verifierStore.verify();
      assertThat(last.findings()).isEmpty();
      assertThat(last.records()).isEqualTo(commits + 1);
      assertThat(runs).isGreaterThanOrEqualTo(3);
    }
  }
}
