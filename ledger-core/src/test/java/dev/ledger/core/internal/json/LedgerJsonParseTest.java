package dev.ledger.core.internal.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@link LedgerJson#parse} and {@link LedgerJson#parseRecord} read trees with factories of
 * their own (no interned, or no canonical, field names; duplicate keys refused by the tree
 * reader): both must stay as strict as the library's mapper. Every check runs both.
 */
class LedgerJsonParseTest {
  private static JsonNode parse(String text) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    JsonNode file;
    try {
      file = LedgerJson.parse(bytes);
    } catch (IOException e) {
      IOException record = null;
      try {
        LedgerJson.parseRecord(bytes, 0, bytes.length);
      } catch (IOException r) {
        record = r;
      }
      assertThat(record).as("parseRecord refuses what parse refuses: " + e.getMessage())
          .isNotNull().hasSameClassAs(e);
      throw e;
    }
    assertThat(LedgerJson.parseRecord(bytes, 0, bytes.length)).isEqualTo(file);
    return file;
  }

  @Test
  void duplicateKeysAreRefusedAtEveryDepth() {
    assertThatThrownBy(() -> parse("{\"a\":1,\"a\":2}")).isInstanceOf(IOException.class)
        .hasMessageContaining("'a'");
    assertThatThrownBy(() -> parse("{\"a\":{\"b\":[{\"k\":1,\"k\":1}]}}"))
        .isInstanceOf(IOException.class).hasMessageContaining("'k'");
  }

  @Test
  void trailingTokensEmptyInputAndNonStandardJsonAreRefused() {
    assertThatThrownBy(() -> parse("{\"a\":1} 2")).isInstanceOf(IOException.class);
    assertThatThrownBy(() -> parse("  ")).isInstanceOf(LedgerJson.JsonParseFailure.class);
    assertThatThrownBy(() -> parse("{\"x\":NaN}")).isInstanceOf(IOException.class);
  }

  @Test
  void nestingIsBoundedAtTheLibrarysDepth() throws IOException {
    int max = LedgerJson.MAX_NESTING_DEPTH;
    assertThat(parse("[".repeat(max) + "]".repeat(max)).isArray()).isTrue();
    assertThatThrownBy(() -> parse("[".repeat(max + 1) + "]".repeat(max + 1)))
        .isInstanceOf(IOException.class).hasMessageContaining(String.valueOf(max));
  }

  @Test
  void manyDistinctNamesReadBackEqualToTheirText() throws IOException {
    StringBuilder text = new StringBuilder("{");
    for (int i = 0; i < 20_000; i++) {
      text.append(i == 0 ? "" : ",").append("\"key-").append(i).append("\":{\"n\":").append(i)
          .append('}');
    }
    JsonNode node = parse(text.append('}').toString());
    assertThat(node.size()).isEqualTo(20_000);
    assertThat(node.get("key-12345").get("n").intValue()).isEqualTo(12345);
    assertThat(new String(LedgerJson.canonical(node), StandardCharsets.UTF_8))
        .isEqualTo(new String(LedgerJson.canonical(LedgerJson.mapper().readTree(
            text.toString())), StandardCharsets.UTF_8));
  }

  /**
   * A thread parses its records with a factory it keeps and renews (its symbol table holds
   * the names of the records before): records with names of their own, and names another
   * record had, read as the library's mapper reads them, and a duplicate key is still refused,
   * across many renewals.
   */
  @Test
  void recordsOfOneThreadReadAlikeAcrossTheirSharedNames() throws IOException {
    for (int i = 0; i < 200; i++) {
      String text = "{\"common\":" + i + ",\"docs\":{\"[\\\"rollout-" + i + "\\\"]\":{\"d\":"
          + "{\"attempt\":" + i + "}}},\"items\":{\"" + (1000 + i) + "\":null,\"common\":"
          + "\"x\"}}";
      assertThat(parse(text)).isEqualTo(LedgerJson.mapper().readTree(text));
      int n = i;
      assertThatThrownBy(() -> parse("{\"k" + n + "\":1,\"common\":2,\"k" + n + "\":3}"))
          .isInstanceOf(IOException.class).hasMessageContaining("'k" + n + "'");
    }
  }
}
