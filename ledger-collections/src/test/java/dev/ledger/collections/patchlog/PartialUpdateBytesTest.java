package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.testing.base.SeedExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A partial update is measured by the fields it names ({@link Json#bytesAfterFields}): the
 * size must equal {@link Json#bytes} of the whole new document, for fields added, replaced
 * and removed, named twice, named but absent on both sides, down to an empty object and up
 * from one, with multi-byte and escaped names and values. Seeded; the seed is printed on
 * failure.
 */
@ExtendWith(SeedExtension.class)
class PartialUpdateBytesTest {
  private static final List<String> NAMES = List.of("a", "status", "\u00fcber", "q\"uote",
      "nested", "n", "emoji\ud83d\ude80", "z", "", "back\\slash", "ctl\u0001", "updatedAtMs");

  private static JsonNode value(Random random) {
    return switch (random.nextInt(12)) {
      case 0 -> Json.NODES.numberNode(random.nextLong());
      case 1 -> Json.NODES.textNode("t\u00e9\n" + random.nextInt(1000));
      case 2 -> Json.NODES.booleanNode(random.nextBoolean());
      case 3 -> Json.NODES.objectNode().put("x", random.nextInt()).put("y", "\u65e5");
      case 4 -> Json.NODES.numberNode(random.nextInt() >> random.nextInt(32));
      case 5 -> Json.NODES.numberNode(List.of(0L, -1L, 9L, 10L, -10L, Long.MIN_VALUE,
          Long.MAX_VALUE, (long) Integer.MIN_VALUE).get(random.nextInt(8)));
      case 6 -> Json.NODES.numberNode((short) random.nextInt());
      case 7 -> Json.NODES.textNode("plain a/b ~ " + random.nextInt());
      case 8 -> Json.NODES.textNode("del\u007f quote\" back\\ tab\t");
      case 9 -> Json.NODES.textNode("");
      case 10 -> Json.NODES.numberNode(random.nextDouble());
      default -> Json.NODES.arrayNode().add(1).add("two").add(random.nextDouble());
    };
  }

  @Test
  void theSizeFromTheNamedFieldsIsTheWholeDocumentsSize(Random random) {
    for (int round = 0; round < 2_000; round++) {
      ObjectNode before = Json.NODES.objectNode();
      for (String name : NAMES) {
        if (random.nextInt(3) == 0) {
          before.set(name, value(random));
        }
      }
      ObjectNode after = before.deepCopy();
      List<String> fields = new ArrayList<>();
      int named = random.nextInt(4);
      for (int i = 0; i < named; i++) {
        String field = NAMES.get(random.nextInt(NAMES.size()));
        fields.add(field);
        if (random.nextBoolean()) {
          after.set(field, value(random));
        } else {
          after.remove(field);
        }
      }
      if (!fields.isEmpty() && random.nextInt(4) == 0) {
        fields.add(fields.get(0));
      }
      assertThat(Json.bytesAfterFields(before, Json.bytes(before), after, fields))
          .as("%s -> %s naming %s", before, after, fields)
          .isEqualTo(Json.bytes(after));
    }
  }
}
