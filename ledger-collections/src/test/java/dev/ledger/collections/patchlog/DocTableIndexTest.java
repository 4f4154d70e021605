package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Indexes built once after a cold open ({@link DocTable#buildIndexes}, which fills a run of
 * equal values into one bucket) hold what indexes maintained through every put and removal
 * hold: the same buckets, each with its keys in the same (insertion) order.
 */
@ExtendWith(SeedExtension.class)
class DocTableIndexTest {
  /** Values of the indexed field: runs of equal ones, equal numbers of other types, nulls. */
  private static JsonNode value(Random random) {
    return switch (random.nextInt(7)) {
      case 0 -> null;
      case 1 -> Json.NODES.nullNode();
      case 2 -> Json.NODES.numberNode(random.nextInt(3));
      case 3 -> Json.NODES.numberNode((long) random.nextInt(3));
      case 4 -> Json.NODES.numberNode(new BigDecimal(random.nextInt(3) + ".0"));
      case 5 -> Json.NODES.textNode(String.valueOf(random.nextInt(3)));
      default -> Json.NODES.textNode("group-" + random.nextInt(4));
    };
  }

  @Test
  void indexesBuiltAtOnceEqualIndexesMaintainedPutByPut(TestSeed seed) {
    Random random = seed.random();
    DocTable maintained = new DocTable(List.of("group"));
    DocTable built = new DocTable(List.of("group"));
    built.deferIndexes();
    Set<String> buckets = new LinkedHashSet<>();
    List<String> keys = new ArrayList<>();
    JsonNode run = null;
    for (int i = 0; i < 2_000; i++) {
      if (random.nextInt(4) == 0) {
        run = value(random);
      }
      String key = random.nextInt(5) == 0 && !keys.isEmpty()
          ? keys.get(random.nextInt(keys.size())) : "k" + i;
      keys.add(key);
      if (random.nextInt(20) == 0) {
        maintained.remove(key);
        built.remove(key);
        continue;
      }
      // Same ordinal as the document it replaces now and then (a replace in place).
      DocTable.Doc old = maintained.get(key);
      long ordinal = old != null && random.nextBoolean() ? old.ordinal : i;
      buckets.add(Json.indexKey(run));
      maintained.put(new DocTable.Doc(key, ordinal, doc(run), DocTable.UNMEASURED));
      built.put(new DocTable.Doc(key, ordinal, doc(run), DocTable.UNMEASURED));
    }
    built.buildIndexes();
    for (String bucket : buckets) {
      assertThat(new ArrayList<>(built.lookup("group", bucket)))
          .as("bucket %s, %s", bucket, seed)
          .containsExactlyElementsOf(new ArrayList<>(orderedByOrdinal(maintained, bucket)));
    }
  }

  private static ObjectNode doc(JsonNode group) {
    ObjectNode doc = Json.NODES.objectNode();
    if (group != null) {
      doc.set("group", group);
    }
    doc.put("body", "x");
    return doc;
  }

  /**
   * The bucket of a maintained index, in ordinal order: a replace in place moves a key to the
   * end of its new bucket, where a build lists it at its ordinal; a query orders what an index
   * gives by ordinal, so only the members and the order of first insertions must agree.
   */
  private static List<String> orderedByOrdinal(DocTable table, String bucket) {
    Set<String> keys = table.lookup("group", bucket);
    List<String> ordered = new ArrayList<>();
    for (DocTable.Doc doc : table.inOrder()) {
      if (keys.contains(doc.key)) {
        ordered.add(doc.key);
      }
    }
    assertThat(ordered).hasSameSizeAs(keys);
    return ordered;
  }

  @Test
  void bucketsOfOneKeyGrowShrinkAndGoAsTheirKeysComeAndLeave(TestSeed seed) {
    Random random = seed.random();
    DocTable table = new DocTable(List.of("group"));
    java.util.Map<String, JsonNode> model = new java.util.HashMap<>();
    for (int i = 0; i < 5_000; i++) {
      String key = "k" + random.nextInt(400);
      // Mostly distinct values (a bucket of one key), sometimes shared, sometimes absent.
      JsonNode group = random.nextInt(10) == 0 ? null
          : Json.NODES.textNode("id-" + random.nextInt(random.nextBoolean() ? 600 : 40));
      DocTable.Doc old = table.get(key);
      if (random.nextInt(6) == 0) {
        table.remove(key);
        model.remove(key);
      } else {
        long ordinal = old != null && random.nextBoolean() ? old.ordinal : i;
        table.put(new DocTable.Doc(key, ordinal, doc(group), DocTable.UNMEASURED));
        model.put(key, group);
      }
      if (i % 250 == 0 || i == 4_999) {
        java.util.Map<String, Set<String>> expected = new java.util.HashMap<>();
        model.forEach((k, v) -> expected.computeIfAbsent(Json.indexKey(v),
            b -> new java.util.HashSet<>()).add(k));
        for (int v = 0; v < 600; v++) {
          String bucket = Json.indexKey(Json.NODES.textNode("id-" + v));
          assertThat(table.lookup("group", bucket)).as("bucket %s after %d, %s", bucket, i, seed)
              .containsExactlyInAnyOrderElementsOf(expected.getOrDefault(bucket, Set.of()));
        }
        assertThat(table.lookup("group", Json.indexKey(null))).as("%s", seed)
            .containsExactlyInAnyOrderElementsOf(expected.getOrDefault(Json.indexKey(null),
                Set.of()));
      }
    }
  }
}
