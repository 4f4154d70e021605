package dev.ledger.examples.readme;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.fs.FileLedgerStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's verify-and-repair snippet finds a lost checkpoint and rebuilds it. */
class VerifyAndRepairTest {
  @TempDir Path dir;

  /** A plain counter state. */
  record Count(int value) {}

  @Test
  void theSnippetReportsTheStoreAndRepairsALostCheckpoint() throws IOException {
    try (FileLedgerStore store = FileLedgerStore.open(dir)) {
      Ledger<Count> ledger = store.ledger("run-1", Count.class);
      for (int i = 1; i <= 5; i++) {
        ledger.commit(i - 1, new Count(i), EventDraft.of("counted", Map.of("to", i)));
      }
    }
    Path checkpoint = dir.resolve("ledgers/run-1/state.json");
    Files.delete(checkpoint);

    PrintStream original = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (PrintStream capture = new PrintStream(out, true, StandardCharsets.UTF_8)) {
      System.setOut(capture);
      VerifyAndRepair.verifyThenRepair(dir);
    } finally {
      System.setOut(original);
    }

    assertThat(out.toString(StandardCharsets.UTF_8).lines()).containsExactly(
        "1 ledgers, 5 records, 5 events: clean", "run-1 is at revision 5");
    assertThat(checkpoint).isRegularFile();
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(dir)) {
      assertThat(store.verify().clean()).isTrue();
      assertThat(store.ledger("run-1", Count.class).load().state()).isEqualTo(new Count(5));
    }
  }
}
