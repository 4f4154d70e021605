package dev.ledger.examples.readme;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.core.Cursor;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.fs.FileLedgerStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's export-and-import snippet moves a ledger whole into another store. */
class ExportImportTest {
  @TempDir Path dir;

  /** A plain counter state. */
  record Count(int value) {}

  @Test
  void theSnippetMovesTheLedgerWithItsEventsAndCommands() throws IOException {
    Path from = dir.resolve("from");
    try (FileLedgerStore store = FileLedgerStore.open(from)) {
      Ledger<Count> ledger = store.ledger("run-1", Count.class);
      for (int i = 1; i <= 3; i++) {
        ledger.commit(i - 1, new Count(i),
            EventDraft.of("counted", Map.of("to", i)).withCommandId("count-" + i));
      }
    }

    PrintStream original = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (PrintStream capture = new PrintStream(out, true, StandardCharsets.UTF_8)) {
      System.setOut(capture);
      ExportImport.copy(from, dir.resolve("run-1.ledger.jsonl"), dir.resolve("to"));
    } finally {
      System.setOut(original);
    }

    assertThat(out.toString(StandardCharsets.UTF_8).lines()).containsExactly(
        "exported run-1 up to revision 3", "imported run-1 at revision 3");
    try (FileLedgerStore source = FileLedgerStore.openReadOnly(from);
        FileLedgerStore copy = FileLedgerStore.open(dir.resolve("to"))) {
      Ledger<Count> copied = copy.ledger("run-1", Count.class);
      assertThat(copied.load().state()).isEqualTo(new Count(3));
      assertThat(copied.events(Cursor.START, 10).events())
          .isEqualTo(source.ledger("run-1", Count.class).events(Cursor.START, 10).events());
      assertThat(copied.commit(2, new Count(3),
          EventDraft.of("counted", Map.of("to", 3)).withCommandId("count-3")).replayed())
          .as("a retried command replays in the copy").isTrue();
      assertThat(copy.verify().clean()).isTrue();
    }
  }
}
