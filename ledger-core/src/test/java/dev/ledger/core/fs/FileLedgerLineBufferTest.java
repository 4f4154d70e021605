package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committing thread's reused journal-line buffer (see {@code FileLedger#lineBuffer}) stays
 * bounded: a line longer than the bound (a large event on a small state, which the buffer's
 * size hint does not foresee) is written whole, and the grown buffer is not kept.
 */
class FileLedgerLineBufferTest {
  @Test
  void aLineLongerThanTheKeptBoundIsWrittenAndItsBufferIsNotKept(@TempDir Path dir) {
    try (FileLedgerStore store = FileLedgerStore.open(dir)) {
      Ledger<Counter> ledger = store.ledger("big-event", Counter.class);
      long r = ledger.commit(Ledger.NO_REVISION, new Counter(1),
          EventDraft.of("small", Map.of("n", 1))).revision();
      int kept = FileLedger.keptLineBufferBytes();
      assertThat(kept).as("a small line's buffer is kept").isBetween(1,
          FileLedger.KEPT_LINE_BUFFER);

      String large = "x".repeat(3 * FileLedger.KEPT_LINE_BUFFER);
      r = ledger.commit(r, new Counter(2), EventDraft.of("large", Map.of("body", large)))
          .revision();
      assertThat(FileLedger.keptLineBufferBytes())
          .as("kept line buffer after a %,d-byte event", large.length())
          .isLessThanOrEqualTo(FileLedger.KEPT_LINE_BUFFER);
      assertThat(ledger.events(dev.ledger.core.Cursor.START, 10).events())
          .extracting(e -> e.type()).containsExactly("small", "large");
      assertThat(ledger.events(dev.ledger.core.Cursor.START, 10).events().get(1).payload()
          .get("body").asText()).isEqualTo(large);

      ledger.commit(r, new Counter(3), EventDraft.of("small", Map.of("n", 3)));
      assertThat(FileLedger.keptLineBufferBytes()).as("a small line's buffer is kept again")
          .isBetween(1, FileLedger.KEPT_LINE_BUFFER);
    }
  }
}
