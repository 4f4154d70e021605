package dev.ledger.core.internal.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The byte writer of journal lines gives exactly what Jackson's generator gives for the
 * library's mapper, byte for byte, and refuses what the generator path refuses.
 */
@ExtendWith(SeedExtension.class)
class CanonicalWriterTest {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  @Test
  void treesAreWrittenAsJacksonWritesThem(TestSeed seed) throws Exception {
    Random random = seed.random();
    int written = 0;
    for (int i = 0; i < 3000; i++) {
      JsonNode tree = tree(random, 4, true);
      CanonicalWriter out = new CanonicalWriter(16);
      boolean ok = out.tree(tree, 0);
      assertThat(ok).as("%s case %s: %s", seed, i, tree).isEqualTo(jacksonHandles(tree));
      if (ok) {
        written++;
        assertThat(Arrays.copyOf(out.array(), out.size())).as("%s case %s: %s", seed, i, tree)
            .isEqualTo(LedgerJson.mapper().writer().writeValueAsBytes(tree));
      }
    }
    assertThat(written).as("%s: most random trees are written", seed).isGreaterThan(1000);
  }

  @Test
  void prettyTreesAreWrittenAsJacksonsPrettyPrinterWritesThem(TestSeed seed) throws Exception {
    Random random = seed.random();
    int written = 0;
    for (int i = 0; i < 3000; i++) {
      JsonNode tree = tree(random, 4, true);
      CanonicalWriter out = new CanonicalWriter(16);
      if (out.prettyTree(tree)) {
        written++;
        byte[] line = Arrays.copyOf(Arrays.copyOf(out.array(), out.size()), out.size() + 1);
        line[out.size()] = '\n';
        assertThat(new String(line, java.nio.charset.StandardCharsets.UTF_8))
            .as("%s case %s: %s", seed, i, tree)
            .isEqualTo(new String(LedgerJson.prettyByJackson(tree),
                java.nio.charset.StandardCharsets.UTF_8));
      }
      assertThat(LedgerJson.pretty(tree)).as("%s case %s: %s", seed, i, tree)
          .isEqualTo(LedgerJson.prettyByJackson(tree));
    }
    assertThat(written).as("%s: most random trees are written", seed).isGreaterThan(1000);
  }

  @Test
  void prettyEdgesAreWrittenAsJacksonsPrettyPrinterWritesThem() throws Exception {
    ObjectNode root = F.objectNode();
    root.put("z", 1);
    root.putObject("empty");
    root.putArray("none");
    ArrayNode items = root.putArray("items");
    items.addObject().put("b", true).put("a", "x");
    items.addArray().add(1).addArray();
    items.addObject();
    root.putObject("inner").putObject("deeper").putArray("list").addObject().putNull("n");
    for (JsonNode tree : java.util.List.of(root, F.objectNode(), F.arrayNode(), items,
        F.textNode("t"), F.numberNode(3L))) {
      assertThat(new String(LedgerJson.pretty(tree), java.nio.charset.StandardCharsets.UTF_8))
          .as("%s", tree).isEqualTo(new String(LedgerJson.prettyByJackson(tree),
              java.nio.charset.StandardCharsets.UTF_8));
    }
  }

  @Test
  void longAndMixedStringsAreWrittenAsJacksonWritesThem(TestSeed seed) throws Exception {
    Random random = seed.random();
    for (int i = 0; i < 400; i++) {
      StringBuilder text = new StringBuilder();
      int runs = random.nextInt(6);
      for (int r = 0; r < runs; r++) {
        // Long plain runs (past the generator's buffers) between characters of every class.
        text.append("lorem ipsum ".repeat(random.nextInt(1500)));
        text.append(text(random));
      }
      CanonicalWriter out = new CanonicalWriter(16);
      out.string(text.toString());
      ByteArrayOutputStream expected = new ByteArrayOutputStream();
      try (JsonGenerator gen = LedgerJson.generator(expected)) {
        gen.writeString(text.toString());
      }
      assertThat(Arrays.copyOf(out.array(), out.size())).as("%s case %s", seed, i)
          .isEqualTo(expected.toByteArray());
      assertThat(CanonicalSize.string(text.toString())).as("%s case %s", seed, i)
          .isEqualTo(expected.size());
    }
  }

  @Test
  void everyCharacterIsWrittenAndCountedAsJacksonWritesIt() throws Exception {
    String plain = "x".repeat(CanonicalSize.WORDWISE + 9);
    for (int c = 0; c <= 0xffff; c++) {
      // Short strings, and long ones (checked a word at a time) with the character at every
      // position of a word, and at the end.
      for (String text : new String[] {"a" + (char) c + "b", plain.substring(c % 8) + (char) c
          + plain, plain + (char) c}) {
        CanonicalWriter out = new CanonicalWriter(16);
        out.string(text);
        byte[] expected = LedgerJson.mapper().writeValueAsBytes(text);
        assertThat(Arrays.copyOf(out.array(), out.size())).as("U+%04X in %s chars", c,
            text.length()).isEqualTo(expected);
        assertThat(CanonicalSize.string(text)).as("U+%04X in %s chars", c, text.length())
            .isEqualTo(expected.length);
      }
    }
  }

  @Test
  void numbersAreWrittenAsJacksonWritesThem() throws Exception {
    ArrayNode tree = F.arrayNode().add(Long.MIN_VALUE).add(Long.MAX_VALUE).add(Integer.MIN_VALUE)
        .add(Integer.MAX_VALUE).add(0).add(-1).add(9).add(10).add(-10).add(Double.MIN_VALUE)
        .add(-Double.MAX_VALUE).add(1e7).add(1e-3).add(0.001).add(-0.0).add(123456789.125)
        .add(BigInteger.TEN.pow(40).negate());
    CanonicalWriter out = new CanonicalWriter(16);
    assertThat(out.tree(tree, 0)).isTrue();
    assertThat(Arrays.copyOf(out.array(), out.size()))
        .isEqualTo(LedgerJson.mapper().writer().writeValueAsBytes(tree));
  }

  @Test
  void containersDeeperThanTheReaderAcceptsAreRefused() {
    JsonNode deepest = nested(LedgerJson.MAX_NESTING_DEPTH - 2);
    // Inside two containers, as a record's state is inside the record: 500 deep in all.
    assertThat(new CanonicalWriter(16).tree(deepest, 2)).isTrue();
    assertThatThrownBy(() -> new CanonicalWriter(16).tree(deepest, 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nesting depth (501)");
  }

  private static JsonNode nested(int depth) {
    JsonNode node = F.arrayNode();
    for (int i = 1; i < depth; i++) {
      node = F.arrayNode().add(node);
    }
    return node;
  }

  /** Whether the generator path writes {@code tree} (only the kinds parsing produces). */
  private static boolean jacksonHandles(JsonNode tree) throws IOException {
    try (JsonGenerator gen = LedgerJson.generator(new ByteArrayOutputStream())) {
      return LedgerJson.writeCanonical(gen, tree);
    }
  }

  private static JsonNode tree(Random random, int depth, boolean container) {
    int kind = container && depth > 0 ? random.nextInt(2) : 2 + random.nextInt(13);
    switch (kind) {
      case 0: {
        ObjectNode object = F.objectNode();
        int n = random.nextInt(6);
        for (int i = 0; i < n; i++) {
          object.set(random.nextInt(3) == 0 ? text(random) : "k" + random.nextInt(20),
              tree(random, depth - 1, random.nextBoolean()));
        }
        return object;
      }
      case 1: {
        ArrayNode array = F.arrayNode();
        int n = random.nextInt(5);
        for (int i = 0; i < n; i++) {
          array.add(tree(random, depth - 1, random.nextBoolean()));
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
      case 11: return random.nextInt(10) == 0 ? F.numberNode(random.nextFloat())
          : F.textNode("x".repeat(random.nextInt(3000)));
      case 12: return random.nextInt(10) == 0 ? F.numberNode(new BigDecimal("1.50"))
          : F.numberNode(-0.0);
      case 13: return random.nextInt(10) == 0 ? F.numberNode(Double.NaN) : F.textNode("");
      default: return F.textNode("\uD83D\uDE00");
    }
  }

  private static String text(Random random) {
    StringBuilder b = new StringBuilder();
    int n = random.nextInt(12);
    for (int i = 0; i < n; i++) {
      int pick = random.nextInt(10);
      if (pick < 4) {
        b.append((char) ('a' + random.nextInt(26)));
      } else if (pick == 4) {
        b.append((char) random.nextInt(0x20));
      } else if (pick == 5) {
        b.append("\"\\/\u007f");
      } else if (pick == 6) {
        b.append((char) (0x80 + random.nextInt(0x780)));
      } else if (pick == 7) {
        b.append(random.nextBoolean() ? "\uD83D\uDE00" : "\u0800\uffff\uDC00");
      } else if (pick == 8) {
        b.append((char) (0x800 + random.nextInt(0xF7FF)));
      } else {
        b.append('\u2028');
      }
    }
    return b.toString();
  }
}
