package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link Json#bytes} counts the bytes it writes instead of keeping them: the count must be
 * the length of the bytes the same mapper writes into an array (what it measured before),
 * for multi-byte text, escapes, a surrogate pair (which the UTF-8 generator writes as two
 * escapes, so not the UTF-8 length of the text), and documents larger than the generator's
 * buffer (which it flushes in several writes).
 */
@ExtendWith(SeedExtension.class)
class JsonBytesTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static void assertCounted(JsonNode node) throws Exception {
    assertThat(Json.bytes(node)).isEqualTo(MAPPER.writeValueAsBytes(node).length);
  }

  @Test
  void theCountIsTheLengthOfTheBytesTheMapperWrites() throws Exception {
    ObjectNode doc = Json.NODES.objectNode();
    doc.put("ascii", "plain");
    doc.put("accents", "\u00e9t\u00e9");
    doc.put("cjk", "\u65e5\u672c");
    doc.put("emoji", "\ud83d\ude80");
    doc.put("escapes", "quote\" backslash\\ newline\n tab\t nul\u0000");
    doc.put("\u00fcber", 1);
    doc.put("long", 1L << 40);
    doc.put("decimal", new BigDecimal("1.250"));
    doc.put("double", 0.1);
    doc.put("flag", false);
    doc.putNull("nothing");
    doc.putObject("nested").putArray("list").add(1).addNull().add("x");
    doc.putObject("empty");

    assertCounted(doc);
    assertCounted(Json.NODES.objectNode());
    assertCounted(Json.NODES.textNode("\u00e9"));
    assertCounted(Json.NODES.numberNode(-7));
  }

  @Test
  void aDocumentLargerThanTheWriteBufferIsCountedWhole() throws Exception {
    ArrayNode list = Json.NODES.arrayNode();
    for (int i = 0; i < 5_000; i++) {
      list.add("item \u00e9 " + i);
    }
    ObjectNode doc = Json.NODES.objectNode();
    doc.set("list", list);

    assertThat(Json.bytes(doc)).isGreaterThan(64 * 1024);
    assertCounted(doc);
  }

  @Test
  void randomTreesAreCountedAsTheMapperWritesThem(TestSeed seed) throws Exception {
    Random random = seed.random();
    for (int i = 0; i < 2_000; i++) {
      JsonNode tree = randomValue(random, 0);
      assertThat(Json.bytes(tree)).as("seed %s, tree %s", seed, tree)
          .isEqualTo(MAPPER.writeValueAsBytes(tree).length);
    }
  }

  @Test
  void keyTextIsTheMappersText(TestSeed seed) throws Exception {
    Random random = seed.random();
    for (int i = 0; i < 2_000; i++) {
      ArrayNode key = Json.NODES.arrayNode();
      int n = 1 + random.nextInt(3);
      for (int k = 0; k < n; k++) {
        key.add(randomScalar(random));
      }
      assertThat(Json.keyText(key)).as("seed %s, key %s", seed, key)
          .isEqualTo(MAPPER.writeValueAsString(key));
    }
  }

  private static JsonNode randomValue(Random random, int depth) {
    int kind = random.nextInt(depth < 4 ? 9 : 7);
    if (kind == 7) {
      ObjectNode object = Json.NODES.objectNode();
      for (int i = random.nextInt(5); i > 0; i--) {
        object.set(randomText(random), randomValue(random, depth + 1));
      }
      return object;
    }
    if (kind == 8) {
      ArrayNode array = Json.NODES.arrayNode();
      for (int i = random.nextInt(5); i > 0; i--) {
        array.add(randomValue(random, depth + 1));
      }
      return array;
    }
    return kind == 6 ? Json.NODES.nullNode() : randomScalar(random);
  }

  private static JsonNode randomScalar(Random random) {
    return switch (random.nextInt(8)) {
      case 0 -> Json.NODES.numberNode(random.nextInt());
      case 1 -> Json.NODES.numberNode(random.nextLong());
      case 2 -> Json.NODES.numberNode((short) random.nextInt());
      case 3 -> Json.NODES.numberNode(random.nextDouble() * 1e6);
      case 4 -> Json.NODES.numberNode(new BigInteger(80, random));
      case 5 -> Json.NODES.booleanNode(random.nextBoolean());
      case 6 -> Json.NODES.numberNode(Long.MIN_VALUE);
      default -> Json.NODES.textNode(randomText(random));
    };
  }

  /** Mostly printable ASCII, sometimes quotes, backslashes, controls and other characters. */
  private static String randomText(Random random) {
    String pool = "abc XYZ09-_./:{}[]\"\\\u0000\n\t\u001f\u007f\u00e9\u65e5";
    StringBuilder text = new StringBuilder();
    for (int i = random.nextInt(12); i > 0; i--) {
      int pick = random.nextInt(8);
      if (pick == 0) {
        text.append("\ud83d\ude80");
      } else if (pick == 1) {
        text.append(pool.charAt(random.nextInt(pool.length())));
      } else {
        text.append((char) (' ' + random.nextInt(95)));
      }
    }
    return text.toString();
  }
}
