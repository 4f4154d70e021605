package dev.ledger.core.internal.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@link LedgerJson#parse} reads trees with a factory of its own (no canonical field names,
 * duplicate keys refused by the tree reader): it must stay as strict as the library's mapper.
 */
class LedgerJsonParseTest {
  private static JsonNode parse(String text) throws IOException {
    return LedgerJson.parse(text.getBytes(StandardCharsets.UTF_8));
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
}
