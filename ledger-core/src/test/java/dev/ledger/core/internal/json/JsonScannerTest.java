package dev.ledger.core.internal.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link JsonScanner#string} and {@link JsonScanner#name} decode what the parser decodes, on
 * seeded random strings with every kind of escape and of character. {@code -Dledger.seed=N}
 * replays a run; the seed is printed on failure.
 */
class JsonScannerTest {
  private static final String[] PIECES = {"a", "Z", "0", " ", "rollout-000001", "\\\"",
      "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u0041", "\\u00e9", "\\u001F",
      "\\ud83d\\ude00", "\u00e9", "\u4e2d", "\ud83d\ude00", "[", "]", ""};

  private final long seed = Long.getLong("ledger.seed", System.nanoTime());

  @Test
  void stringsAndNamesDecodeAsTheParserDecodesThem() throws Exception {
    Random random = new Random(seed);
    try {
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
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError("seed " + seed + " (-Dledger.seed=" + seed + ")", e);
    }
  }
}
