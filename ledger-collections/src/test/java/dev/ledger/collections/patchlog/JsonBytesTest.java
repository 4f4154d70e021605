package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

/**
 * {@link Json#bytes} counts the bytes it writes instead of keeping them: the count must be
 * the length of the bytes the same mapper writes into an array (what it measured before),
 * for multi-byte text, escapes, a surrogate pair (which the UTF-8 generator writes as two
 * escapes, so not the UTF-8 length of the text), and documents larger than the generator's
 * buffer (which it flushes in several writes).
 */
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
}
