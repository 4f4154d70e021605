package dev.ledger.core.internal.json;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link JsonScanner#string} and {@link JsonScanner#name} decode what the parser decodes, on
 * seeded random strings with every kind of escape and of character. The seed is a
 * {@link TestSeed}: printed on failure, replayed with {@code -Dledger.seed}.
 */
@ExtendWith(SeedExtension.class)
class JsonScannerTest {
  private static final String[] PIECES = {"a", "Z", "0", " ", "rollout-000001", "\\\"",
      "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u0041", "\\u00e9", "\\u001F",
      "\\ud83d\\ude00", "\u00e9", "\u4e2d", "\ud83d\ude00", "[", "]", ""};

  @Test
  void stringsAndNamesDecodeAsTheParserDecodesThem(TestSeed seed) throws Exception {
    Random random = seed.random();
    for (int i = 0; i < 5_000; i++) {
      StringBuilder text = new StringBuilder();
      int n = random.nextInt(8);
      for (int k = 0; k < n; k++) {
        text.append(PIECES[random.nextInt(PIECES.length)]);
      }
      String json = "{\"" + text + "\":\"" + text + "\"}";
      byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
      String expected = LedgerJson.parse(bytes).fieldNames().next();
      JsonScanner in = new JsonScanner(bytes, 0, bytes.length);
      assertThat(in.beginObject()).isTrue();
      assertThat(in.name()).as(json).isEqualTo(expected);
      assertThat(in.string()).as(json).isEqualTo(expected);
      assertThat(in.nextMember()).isFalse();
      assertThat(in.atEnd()).isTrue();
    }
  }
}
