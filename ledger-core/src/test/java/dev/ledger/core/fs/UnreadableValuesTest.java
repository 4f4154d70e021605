package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.Cursor;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A value the JSON reader would refuse is refused before it is written: a record acknowledged
 * and then unreadable would make its ledger unreadable for good (every read of the journal
 * would report it as damage). Found by committing a 1,501-digit number in a payload: it was
 * acknowledged, and every later page read threw CorruptLedgerException.
 */
class UnreadableValuesTest {
  @TempDir
  Path dir;

  @Test
  void numbersStringsAndNamesBeyondWhatTheReaderTakesAreRefusedBeforeWriting() {
    try (FileLedgerStore store = FileLedgerStore.open(dir, LedgerOptions.defaults()
        .withLimits(64 * 1024 * 1024, 64 * 1024 * 1024))) {
      Ledger<JsonNode> ledger = store.ledger("r", JsonNode.class);
      JsonNode empty = JsonNodeFactory.instance.objectNode();
      assertThatThrownBy(() -> ledger.commit(0, empty,
          EventDraft.of("e", Map.of("n", BigInteger.TEN.pow(1500)))))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1501 digits");
      assertThatThrownBy(() -> ledger.commit(0, JsonNodeFactory.instance.objectNode()
          .put("d", new BigDecimal(BigInteger.TEN.pow(2000), 3))))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("digits");
      ObjectNode longName = JsonNodeFactory.instance.objectNode().put("x".repeat(50_001), 1);
      assertThatThrownBy(() -> ledger.commit(0, longName))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("field name");
      assertThatThrownBy(() -> EventDraft.of("e", Map.of("s", "s".repeat(20_000_001))))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("20000001");
      assertThat(ledger.find()).as("nothing written").isEmpty();

      // Up to the bounds, values are written and read back.
      BigInteger big = BigInteger.TEN.pow(900);
      ledger.commit(0, JsonNodeFactory.instance.objectNode().put("n", big),
          EventDraft.of("e", Map.of("n", big, "y".repeat(50_000), "a name at the bound")));
    }
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(dir)) {
      Ledger<JsonNode> ledger = store.ledger("r", JsonNode.class);
      assertThat(ledger.load().state().get("n").bigIntegerValue())
          .isEqualTo(BigInteger.TEN.pow(900));
      assertThat(ledger.events(Cursor.START, 10).events().get(0).payload().get("n")
          .bigIntegerValue()).isEqualTo(BigInteger.TEN.pow(900));
    }
  }
}
