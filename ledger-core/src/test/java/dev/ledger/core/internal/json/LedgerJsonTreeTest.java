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
