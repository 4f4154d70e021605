package dev.ledger.core.internal.json;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The fast canonical writer and the in-place re-read must give exactly what Jackson's writer
 * and parser give, byte for byte and node for node (class and member order included).
 */
@ExtendWith(SeedExtension.class)
class CanonicalJsonTest {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  @Test
  void canonicalBytesEqualJacksonsForRandomTrees(TestSeed seed) throws Exception {
    Random random = seed.random();
    for (int i = 0; i < 3000; i++) {
      JsonNode tree = random(random, 4, true);
      byte[] jackson = LedgerJson.mapper().writer().writeValueAsBytes(tree);
      assertThat(LedgerJson.canonical(tree)).as("%s case %s: %s", seed, i, tree)
          .isEqualTo(jackson);
      assertThat(LedgerJson.canonicalSize(tree)).as("%s case %s", seed, i)
          .isEqualTo(jackson.length);
      long counted = CanonicalSize.of(tree);
      if (counted != CanonicalSize.UNCOUNTED) {
        assertThat(counted).as("%s case %s: %s", seed, i, tree).isEqualTo(jackson.length);
      }
    }
  }

  @Test
  void treeCountCoversMostRandomTrees(TestSeed seed) {
    Random random = seed.random();
    int counted = 0;
    for (int i = 0; i < 3000; i++) {
      if (CanonicalSize.of(random(random, 4, true)) != CanonicalSize.UNCOUNTED) {
        counted++;
      }
    }
    assertThat(counted).as("%s: most random trees are counted without a generator", seed)
        .isGreaterThan(1000);
  }

  @Test
  void loneSurrogatesAreCountedAsTheGeneratorWritesThem() {
    for (String text : List.of("a\uD83D", "\uDE00b", "\uD83Dx\uDE00", "\uDE00\uD83D")) {
      ObjectNode tree = F.objectNode().put("k", text);
      assertThat(CanonicalSize.of(tree)).as(text).isEqualTo(LedgerJson.canonical(tree).length);
    }
  }

  @Test
  void extremeNumbersAreCounted() throws Exception {
    ArrayNode tree = F.arrayNode().add(Long.MIN_VALUE).add(Long.MAX_VALUE).add(Integer.MIN_VALUE)
        .add(0).add(-1).add(9).add(10).add(-10).add(Double.MIN_VALUE).add(-Double.MAX_VALUE)
        .add(1e7).add(1e-3).add(0.001).add(123456789.125);
    byte[] jackson = LedgerJson.mapper().writer().writeValueAsBytes(tree);
    assertThat(CanonicalSize.of(tree)).isEqualTo(jackson.length);
  }

  @Test
  void rereadEqualsParsingTheCanonicalBytes(TestSeed seed) throws Exception {
    Random random = seed.random();
    int fast = 0;
    for (int i = 0; i < 3000; i++) {
      JsonNode tree = random(random, 4, true);
      byte[] bytes = LedgerJson.canonical(tree);
      JsonNode parsed = LedgerJson.parse(bytes);
      if (CanonicalJson.normalized(tree.deepCopy()) != null) {
        fast++;
      }
      JsonNode reread = LedgerJson.reread(tree.deepCopy());
      assertThat(reread).as("%s case %s: %s", seed, i, tree).isEqualTo(parsed);
      assertThat(describe(reread)).as("%s case %s", seed, i).isEqualTo(describe(parsed));
    }
    assertThat(fast).as("%s: most random trees take the fast path", seed).isGreaterThan(1000);
  }

  @Test
  void unsupportedKindsFallBackToJackson() throws Exception {
    ObjectNode tree = F.objectNode();
    tree.put("z", 1.5f);
    tree.put("a", new BigDecimal("1E+3"));
    tree.put("nan", Double.NaN);
    tree.put("bin", new byte[] {1, 2, 3});
    byte[] bytes = LedgerJson.canonical(tree);
    assertThat(bytes).isEqualTo(LedgerJson.mapper().writer().writeValueAsBytes(tree));
    assertThat(LedgerJson.canonicalSize(tree)).isEqualTo(bytes.length);
    assertThat(CanonicalJson.normalized(tree.deepCopy())).isNull();
    assertThat(describe(LedgerJson.reread(tree.deepCopy())))
        .isEqualTo(describe(LedgerJson.parse(bytes)));
  }

  /** Node classes and member order, which {@code equals} does not see. */
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
      out.append(node.toString());
    }
    out.append(')');
  }

  private static JsonNode random(Random random, int depth, boolean container) {
    int kind = container && depth > 0 ? random.nextInt(2) : 2 + random.nextInt(12);
    switch (kind) {
      case 0: {
        ObjectNode object = F.objectNode();
        int n = random.nextInt(6);
        for (int i = 0; i < n; i++) {
          object.set(name(random), random(random, depth - 1, random.nextBoolean()));
        }
        return object;
      }
      case 1: {
        ArrayNode array = F.arrayNode();
        int n = random.nextInt(5);
        for (int i = 0; i < n; i++) {
          array.add(random(random, depth - 1, random.nextBoolean()));
        }
        return array;
      }
      case 2: return F.textNode(text(random));
      case 3: return F.numberNode(random.nextInt());
      case 4: return F.numberNode(random.nextLong() >> random.nextInt(64));
      case 5: return F.numberNode(BigInteger.valueOf(random.nextLong()).shiftLeft(
          random.nextInt(80)));
      case 6: return F.numberNode(random.nextDouble() * Math.pow(10, random.nextInt(40) - 20));
      case 7: return F.numberNode((double) random.nextInt(1000));
      case 8: return F.booleanNode(random.nextBoolean());
      case 9: return F.nullNode();
      case 10: return F.numberNode((short) random.nextInt());
      case 11: return random.nextInt(20) == 0 ? F.numberNode(random.nextFloat())
          : F.textNode("x");
      case 12: return F.numberNode(-0.0);
      default: return F.textNode("");
    }
  }

  private static String name(Random random) {
    String[] names = {"a", "b", "B", "aa", "é", "z", "_", "10", "9", "\u00ff", "\uD83D\uDE00"};
    return random.nextInt(4) == 0 ? text(random) : names[random.nextInt(names.length)];
  }

  private static String text(Random random) {
    StringBuilder b = new StringBuilder();
    int n = random.nextInt(12);
    for (int i = 0; i < n; i++) {
      int pick = random.nextInt(10);
      if (pick < 5) {
        b.append((char) ('a' + random.nextInt(26)));
      } else if (pick == 5) {
        b.append((char) random.nextInt(0x20));
      } else if (pick == 6) {
        b.append("\"\\/");
      } else if (pick == 7) {
        b.append((char) (0x80 + random.nextInt(0x700)));
      } else if (pick == 8) {
        b.append(random.nextBoolean() ? "\uD83D\uDE00" : "\u007f\u0800\uffff");
      } else {
        b.append('\u2028');
      }
    }
    return b.toString();
  }
}
