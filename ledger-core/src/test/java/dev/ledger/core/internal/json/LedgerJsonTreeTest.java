package dev.ledger.core.internal.json;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link LedgerJson#tree} of plain maps and lists (built without Jackson's token buffer) gives
 * the tree Jackson's {@code valueToTree} gives: node classes and member order included.
 */
@ExtendWith(SeedExtension.class)
class LedgerJsonTreeTest {
  @Test
  void plainValuesMapToJacksonsTree(TestSeed seed) {
    Random random = seed.random();
    for (ObjectMapper mapper : List.of(LedgerJson.mapper(), LedgerJson.values())) {
      for (int i = 0; i < 2000; i++) {
        Object value = random.nextBoolean() ? map(random, 4) : list(random, 4);
        JsonNode expected = mapper.valueToTree(value);
        JsonNode actual = LedgerJson.tree(mapper, value);
        assertThat(describe(actual)).as("%s case %s: %s", seed, i, value)
            .isEqualTo(describe(expected));
      }
    }
  }

  @Test
  void otherValuesStillGoThroughJackson() {
    Map<String, Object> withDouble = new HashMap<>(Map.of("b", 1.5, "a", List.of(1L, (short) 2)));
    Map<Object, Object> withNullKey = new HashMap<>();
    withNullKey.put(null, 1);
    for (Object value : List.of(withDouble, Map.of(1, "x"), List.of(new StringBuilder("s")),
        Map.of("set", java.util.Set.of("x")))) {
      assertThat(describe(LedgerJson.tree(value)))
          .isEqualTo(describe(LedgerJson.mapper().valueToTree(value)));
    }
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> LedgerJson.tree(withNullKey))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aSortedTreeHasTheCanonicalFormAndNormalFormOfTheCopy(TestSeed seed) throws Exception {
    Random random = seed.random();
    ObjectMapper mapper = LedgerJson.mapper();
    for (int i = 0; i < 2000; i++) {
      Object value = random.nextBoolean() ? map(random, 4) : list(random, 4);
      JsonNode given = mapper.valueToTree(value);
      shuffleMembers(given, random);
      if (random.nextInt(4) == 0) {
        addOddNumbers(given, random);
      }
      String before = describe(given);
      JsonNode copied = LedgerJson.tree(mapper, given);
      JsonNode sorted = LedgerJson.sortedTree(mapper, given);
      assertThat(describe(given)).as("%s case %s: the caller's tree is untouched", seed, i)
          .isEqualTo(before);
      assertThat(sorted).as("%s case %s: a copy", seed, i).isNotSameAs(given);
      assertThat(LedgerJson.canonical(sorted)).as("%s case %s: %s", seed, i, given)
          .isEqualTo(LedgerJson.canonical(copied));
      String order = names(sorted);
      JsonNode expected = LedgerJson.normalizedInPlace(copied);
      assertThat(order).as("%s case %s: members already in the normal form's order", seed, i)
          .isEqualTo(names(expected != null ? expected : LedgerJson.mapper().readTree(
              LedgerJson.canonical(copied))));
      JsonNode actual = LedgerJson.normalizedInPlace(sorted);
      assertThat(actual == null ? "null" : describe(actual)).as("%s case %s: %s", seed, i, given)
          .isEqualTo(expected == null ? "null" : describe(expected));
    }
  }

  @Test
  void aSortedTreeRefusesWhatTheReaderWouldWithTheSameMessage() {
    com.fasterxml.jackson.databind.node.ArrayNode deep = LedgerJson.mapper().createArrayNode();
    com.fasterxml.jackson.databind.node.ArrayNode inner = deep;
    for (int i = 0; i < LedgerJson.MAX_NESTING_DEPTH; i++) {
      inner = inner.addArray();
    }
    com.fasterxml.jackson.databind.node.ObjectNode cyclic = LedgerJson.mapper().createObjectNode();
    cyclic.set("self", cyclic);
    String longText = "x".repeat(LedgerJson.mapper().getFactory().streamReadConstraints()
        .getMaxStringLength() + 1);
    com.fasterxml.jackson.databind.node.ObjectNode longString =
        LedgerJson.mapper().createObjectNode().put("b", 1).put("a", longText);
    com.fasterxml.jackson.databind.node.ObjectNode longName = LedgerJson.mapper()
        .createObjectNode();
    longName.putObject("z").put("y".repeat(LedgerJson.mapper().getFactory()
        .streamReadConstraints().getMaxNameLength() + 1), 1);
    com.fasterxml.jackson.databind.node.ObjectNode hugeNumber = LedgerJson.mapper()
        .createObjectNode().put("n", java.math.BigInteger.TEN.pow(1200));
    for (JsonNode bad : List.of(deep, cyclic, longString, longName, hugeNumber)) {
      Throwable expected = org.assertj.core.api.Assertions.catchThrowable(
          () -> LedgerJson.tree(LedgerJson.mapper(), bad));
      assertThat(expected).isInstanceOf(IllegalArgumentException.class);
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> LedgerJson.sortedTree(LedgerJson.mapper(), bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(expected.getMessage());
    }
  }

  @Test
  void checkDepthRefusesAFarTooDeepTreeBeforeItsStackCanOverflow() {
    // The walk recurses; it must refuse at the bound, never descend 100,000 levels.
    com.fasterxml.jackson.databind.node.ObjectNode deep = LedgerJson.mapper().createObjectNode();
    com.fasterxml.jackson.databind.node.ObjectNode inner = deep;
    for (int i = 0; i < 100_000; i++) {
      inner = inner.putObject("a");
    }
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> LedgerJson.checkDepth(deep))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("JSON nesting depth exceeds the maximum of " + LedgerJson.MAX_NESTING_DEPTH);
    com.fasterxml.jackson.databind.node.ArrayNode deepest = LedgerJson.mapper().createArrayNode();
    com.fasterxml.jackson.databind.node.ArrayNode item = deepest;
    for (int i = 1; i < LedgerJson.MAX_NESTING_DEPTH; i++) {
      item = item.addArray();
    }
    item.add("leaf");
    assertThat(LedgerJson.checkDepth(deepest)).isSameAs(deepest);
  }

  /** The member names of every object, depth first, in their order. */
  private static String names(JsonNode node) {
    StringBuilder out = new StringBuilder();
    if (node.isObject()) {
      node.properties().forEach(e -> out.append(e.getKey()).append('{')
          .append(names(e.getValue())).append('}'));
    } else if (node.isArray()) {
      node.forEach(item -> out.append('[').append(names(item)).append(']'));
    }
    return out.toString();
  }

  /** Reinserts every object's members in a random order, recursively. */
  private static void shuffleMembers(JsonNode node, Random random) {
    if (node instanceof com.fasterxml.jackson.databind.node.ObjectNode object) {
      List<Map.Entry<String, JsonNode>> members = new ArrayList<>();
      object.properties().forEach(e -> members.add(Map.entry(e.getKey(), e.getValue())));
      Collections.shuffle(members, random);
      object.removeAll();
      for (Map.Entry<String, JsonNode> member : members) {
        shuffleMembers(member.getValue(), random);
        object.set(member.getKey(), member.getValue());
      }
    } else if (node.isArray()) {
      node.forEach(item -> shuffleMembers(item, random));
    }
  }

  /** Adds numbers that normalize to another node class, or not at all (a double, NaN). */
  private static void addOddNumbers(JsonNode node, Random random) {
    if (node instanceof com.fasterxml.jackson.databind.node.ObjectNode object) {
      object.put("zLong", (long) random.nextInt(1000));
      object.put("bBig", java.math.BigInteger.valueOf(random.nextLong()));
      object.put("dDouble", random.nextInt(3) == 0 ? Double.NaN : random.nextDouble());
    } else if (node instanceof com.fasterxml.jackson.databind.node.ArrayNode array) {
      array.add((long) random.nextInt());
      array.add(java.math.BigInteger.ONE.shiftLeft(70));
    }
  }

  private static Map<String, Object> map(Random random, int depth) {
    Map<String, Object> map = switch (random.nextInt(4)) {
      case 0 -> new HashMap<>();
      case 1 -> new LinkedHashMap<>();
      case 2 -> new TreeMap<>();
      default -> new TreeMap<>(Comparator.reverseOrder());
    };
    int n = random.nextInt(6);
    for (int i = 0; i < n; i++) {
      map.put(random.nextInt(3) == 0 ? "k" + random.nextInt(30) : "é" + (char) ('a'
          + random.nextInt(26)), value(random, depth - 1));
    }
    return random.nextInt(5) == 0 ? Collections.unmodifiableMap(map) : map;
  }

  private static List<Object> list(Random random, int depth) {
    List<Object> list = new ArrayList<>();
    int n = random.nextInt(5);
    for (int i = 0; i < n; i++) {
      list.add(value(random, depth - 1));
    }
    return random.nextBoolean() ? list : Collections.unmodifiableList(list);
  }

  private static Object value(Random random, int depth) {
    int kind = random.nextInt(depth > 0 ? 9 : 7);
    return switch (kind) {
      case 0 -> "s" + random.nextInt(100);
      case 1 -> random.nextInt();
      case 2 -> random.nextLong() >> random.nextInt(64);
      case 3 -> random.nextBoolean();
      case 4 -> null;
      case 5 -> "";
      case 6 -> random.nextInt(3) - 1;
      case 7 -> map(random, depth);
      default -> list(random, depth);
    };
  }

  private static String describe(JsonNode node) {
    StringBuilder out = new StringBuilder();
    describe(node, out);
    return out.toString();
  }

  private static void describe(JsonNode node, StringBuilder out) {
    out.append(node.getClass().getSimpleName()).append('(');
    if (node.isObject()) {
      node.properties().forEach(e -> {
        out.append(e.getKey()).append('=');
        describe(e.getValue(), out);
        out.append(',');
      });
    } else if (node.isArray()) {
      node.forEach(item -> {
        describe(item, out);
        out.append(',');
      });
    } else {
      out.append(node);
    }
    out.append(')');
  }
}
