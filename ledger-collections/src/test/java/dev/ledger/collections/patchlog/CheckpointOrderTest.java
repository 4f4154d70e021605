package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.testing.base.SeedExtension;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The checkpoint tree is built with its members in canonical order (so its writer streams it
 * without sorting) and holds exactly the table: through random inserts, replacements,
 * removals and keys removed and put again between two checkpoints, every object of
 * {@link DocTable#toTree} is in sorted member order and equal to the table as a model
 * computes it; documents written by a transaction are stored in that order too. Seeded; the
 * seed is printed on failure.
 */
@ExtendWith(SeedExtension.class)
class CheckpointOrderTest {
  private static ObjectNode doc(String id, int version) {
    ObjectNode d = Json.NODES.objectNode();
    // As a transaction stores it: members in canonical order (see storedCopiesAreIn...).
    d.put("id", id);
    d.put("v", version);
    return d;
  }

  @Test
  void tableTreeIsSortedAndComplete(Random random) {
    DocTable table = new DocTable(List.of("v"));
    TreeMap<String, Integer> model = new TreeMap<>();
    Map<String, Long> ordinals = new TreeMap<>();
    for (int round = 0; round < 40; round++) {
      int ops = random.nextInt(60);
      for (int i = 0; i < ops; i++) {
        String key = "[\"k" + random.nextInt(200) + "\"]";
        int version = random.nextInt(1000);
        switch (random.nextInt(3)) {
          case 0 -> {
            table.remove(key);
            model.remove(key);
            ordinals.remove(key);
          }
          case 1 -> {
            // Same key, same ordinal when present (a replacement), else a new ordinal.
            long ordinal = ordinals.containsKey(key) ? ordinals.get(key) : table.next++;
            table.put(new DocTable.Doc(key, ordinal, doc(key, version), DocTable.UNMEASURED));
            model.put(key, version);
            ordinals.put(key, ordinal);
          }
          default -> {
            // Removed and put again at a new ordinal.
            long ordinal = table.next++;
            table.remove(key);
            table.put(new DocTable.Doc(key, ordinal, doc(key, version), DocTable.UNMEASURED));
            model.put(key, version);
            ordinals.put(key, ordinal);
          }
        }
      }
      ObjectNode tree = table.toTree();
      assertSorted(tree);
      JsonNode docs = tree.get("docs");
      List<String> keys = new ArrayList<>();
      docs.fieldNames().forEachRemaining(keys::add);
      assertThat(keys).containsExactlyElementsOf(model.keySet());
      model.forEach((key, version) -> {
        assertThat(docs.get(key).get("d").get("v").intValue()).isEqualTo(version);
        assertThat(docs.get(key).get("o").longValue()).isEqualTo(ordinals.get(key));
      });
    }
  }

  @Test
  void queueTreeIsSortedAcrossAPowerOfTen() {
    ItemTable queue = new ItemTable();
    for (long seq = 95; seq < 105; seq++) {
      queue.put(seq, Json.NODES.numberNode(seq));
    }
    queue.next = 105;
    ObjectNode tree = queue.toTree();
    assertSorted(tree);
    assertThat(tree.get("items").size()).isEqualTo(10);
    assertThat(tree.get("items").fieldNames().next()).isEqualTo("100");
  }

  @Test
  void storedCopiesAreInCanonicalOrder() {
    ObjectNode unsorted = Json.NODES.objectNode();
    unsorted.put("z", 1);
    unsorted.putNull("n");
    unsorted.putObject("a").put("y", 2).put("b", 3);
    JsonNode copy = Json.withoutNulls(unsorted);
    assertSorted(copy);
    assertThat(copy.has("n")).isFalse();
    ObjectNode appended = Json.NODES.objectNode().put("b", 1).put("a", 2);
    assertSorted(Json.inCanonicalOrder(appended));
    assertThat(Json.inCanonicalOrder(appended)).isEqualTo(appended);
  }

  @Test
  void partialUpdatesKeepCanonicalOrder(Random random) {
    List<String> names = List.of("a", "c", "e", "g", "b", "d", "z", "id");
    for (int round = 0; round < 500; round++) {
      ObjectNode base = Json.NODES.objectNode();
      ObjectNode source = Json.NODES.objectNode();
      List<String> fields = new ArrayList<>();
      for (String name : names) {
        if (random.nextBoolean()) {
          base.put(name, random.nextInt(9));
        }
        if (random.nextInt(3) == 0) {
          fields.add(name);
          if (random.nextBoolean()) {
            source.put(name, random.nextInt(9));
          }
        }
      }
      base = (ObjectNode) Json.withoutNulls(base);
      // What the update meant: the base with each named field set from the source, or gone.
      ObjectNode expected = base.deepCopy();
      for (String field : fields) {
        if (source.has(field)) {
          expected.set(field, source.get(field));
        } else {
          expected.remove(field);
        }
      }
      ObjectNode after = Json.withFields(base, source, fields);
      assertSorted(after);
      assertThat(after).isEqualTo(expected);
    }
  }

  private static void assertSorted(JsonNode node) {
    if (node.isObject()) {
      String previous = null;
      for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
        String name = names.next();
        if (previous != null) {
          assertThat(previous.compareTo(name)).as("%s before %s", previous, name)
              .isLessThan(0);
        }
        previous = name;
        assertSorted(node.get(name));
      }
    } else if (node.isArray()) {
      node.forEach(CheckpointOrderTest::assertSorted);
    }
  }
}
