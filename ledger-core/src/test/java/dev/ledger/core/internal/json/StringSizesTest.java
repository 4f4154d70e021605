package dev.ledger.core.internal.json;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Sizes reused by identity must always equal the canonical bytes' length, whatever the trees
 * sized before held (the same strings, equal strings that are other objects, escapes,
 * non-ASCII text, strings moved to other members).
 */
@ExtendWith(SeedExtension.class)
class StringSizesTest {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  @Test
  void sizesEqualTheCanonicalBytesAcrossASequenceOfStates(TestSeed seed) {
    Random random = seed.random();
    StringSizes sizes = new StringSizes();
    List<String> pool = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      pool.add(longString(random));
    }
    for (int i = 0; i < 2000; i++) {
      if (random.nextInt(4) == 0) {
        // A new object with the text of an old one, or a new text altogether.
        int k = random.nextInt(pool.size());
        pool.set(k, random.nextBoolean() ? new String(pool.get(k).toCharArray())
            : longString(random));
      }
      JsonNode tree = tree(random, pool, 3);
      assertThat(sizes.canonicalSize(tree)).as("%s case %s", seed, i)
          .isEqualTo(LedgerJson.canonical(tree).length);
    }
  }

  @Test
  void treesTheWalkDoesNotCountFallBackToTheGenerator() {
    StringSizes sizes = new StringSizes();
    ObjectNode tree = F.objectNode().put("f", 1.5f).put("s", "x".repeat(100));
    assertThat(sizes.canonicalSize(tree)).isEqualTo(LedgerJson.canonical(tree).length);
    ObjectNode next = F.objectNode().put("s", tree.get("s").textValue());
    assertThat(sizes.canonicalSize(next)).isEqualTo(LedgerJson.canonical(next).length);
  }

  private static JsonNode tree(Random random, List<String> pool, int depth) {
    ObjectNode node = F.objectNode();
    int n = 1 + random.nextInt(5);
    for (int i = 0; i < n; i++) {
      String key = "k" + random.nextInt(8);
      switch (depth <= 0 ? random.nextInt(3) : random.nextInt(5)) {
        case 0 -> node.put(key, pool.get(random.nextInt(pool.size())));
        case 1 -> node.put(key, random.nextInt(1000));
        case 2 -> node.put(key, "short" + random.nextInt(10));
        case 3 -> node.set(key, tree(random, pool, depth - 1));
        default -> {
          ArrayNode array = node.putArray(key);
          for (int j = random.nextInt(4); j > 0; j--) {
            array.add(pool.get(random.nextInt(pool.size())));
          }
        }
      }
    }
    return node;
  }

  private static String longString(Random random) {
    String alphabet = "abc \"\\\n\u0001\u00e9\u4e2d\uD83D\uDE00";
    StringBuilder text = new StringBuilder();
    int length = StringSizes.MIN_LENGTH - 2 + random.nextInt(200);
    while (text.length() < length) {
      text.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return text.toString();
  }
}
