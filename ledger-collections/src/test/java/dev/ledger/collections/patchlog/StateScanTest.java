package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.collections.Schema;
import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.internal.json.LedgerJson;
import dev.ledger.core.spi.LoggedCommit;
import dev.ledger.core.spi.RawState;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A state loaded from its bytes by {@link StateScan} is the view a load of the parsed tree
 * builds (documents, ordinals, indexes, sizes, the tree written back), for random states:
 * escapes, unicode, nesting, numbers of every shape, empty objects and arrays, null members,
 * entries and tables not in the shape the store writes, compact or indented. Damaged bytes
 * are found at open or when the document is first used, as a {@link CorruptLedgerException}
 * naming the file. Each failure prints its seed ({@code -Dledger.seed} replays it).
 */
@ExtendWith(SeedExtension.class)
class StateScanTest {
  /**
   * A document type for the schema.
   *
   * @param id the key
   * @param status indexed
   */
  public record Doc(String id, String status) {}

  private static final Schema SCHEMA = Schema.builder()
      .collection("docs", Doc.class, List.of("id"), List.of("status", "n"))
      .collection("other", Doc.class, List.of("id"), List.of())
      .build();
  private static final Path FILE = Path.of("ledgers", "p", "state.json");
  private static final String[] NAMES = {"status", "n", "id", "a", "b", "meta", "é", "\"q\"",
      "tab\t", "\u0001", "😀", "z\\", "items"};

  @Test
  void aScannedStateIsTheViewOfTheParsedTree(TestSeed seed) throws IOException {
    Random random = seed.random();
    for (int round = 0; round < 300; round++) {
      ObjectNode state = state(random);
      byte[] bytes = random.nextInt(4) == 0 ? LedgerJson.pretty(state)
          : LedgerJson.canonical(state);
      String as = "seed " + seed + " round " + round + ": " + new String(bytes,
          StandardCharsets.UTF_8);
      PartitionView expected = new PartitionView(SCHEMA);
      expected.load(LedgerJson.parse(bytes, 0, bytes.length), 7);
      PartitionView scanned = new PartitionView(SCHEMA);
      scanned.load(raw(bytes));
      assertSame(expected, scanned, as);
    }
  }

  @Test
  void aByteChangedAnywhereIsFoundAtOpenOrOnFirstUseOrLoadsAsTheParse(TestSeed seed) {
    Random random = seed.random();
    byte[] replacements = "\"\\{}[],:01-.eantu \u0001x".getBytes(StandardCharsets.US_ASCII);
    for (int round = 0; round < 1500; round++) {
      byte[] bytes = LedgerJson.canonical(state(random));
      int at = random.nextInt(bytes.length);
      bytes[at] = replacements[random.nextInt(replacements.length)];
      String as = "seed " + seed + " round " + round + " byte " + at + ": "
          + new String(bytes, StandardCharsets.UTF_8);
      JsonNode tree;
      try {
        tree = LedgerJson.parse(bytes, 0, bytes.length);
      } catch (IOException e) {
        tree = null;
      }
      PartitionView scanned = new PartitionView(SCHEMA);
      CorruptLedgerException found = null;
      try {
        scanned.load(raw(bytes));
        useEveryDocument(scanned);
      } catch (CorruptLedgerException e) {
        found = e;
      }
      if (tree == null) {
        assertThat(found).as(as).isNotNull();
        assertThat(found.path()).as(as).isEqualTo(FILE);
        assertThat(found).as(as).hasMessageContaining("state.json");
        continue;
      }
      if (found != null) {
        fail(as + ": parses, but the scan refused it: " + found);
      }
      PartitionView expected = new PartitionView(SCHEMA);
      expected.load(tree, 7);
      PartitionView again = new PartitionView(SCHEMA);
      again.load(raw(bytes));
      assertSame(expected, again, as);
    }
  }

  /**
   * {@code 1e999} is valid JSON beyond a double's range: a parse gives an infinite double, which
   * has no decimal value. An indexed field holding one (a random byte change made one) loads,
   * indexes, compares and sorts as the parsed tree's load does, instead of failing outside the
   * store's errors.
   */
  @Test
  void numbersBeyondADoublesRangeInAnIndexedFieldLoadAsTheParsedTreeLoads() throws IOException {
    String text = new String(LedgerJson.canonical(state(doc("a", "x"), doc("b", "y"),
        doc("c", "z"))), StandardCharsets.UTF_8)
        .replace("\"id\":\"a\"", "\"id\":\"a\",\"n\":1e999")
        .replace("\"id\":\"b\"", "\"id\":\"b\",\"n\":-1e999")
        .replace("\"id\":\"c\"", "\"id\":\"c\",\"n\":1e999");
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    PartitionView expected = new PartitionView(SCHEMA);
    expected.load(LedgerJson.parse(bytes, 0, bytes.length), 7);
    PartitionView scanned = new PartitionView(SCHEMA);
    scanned.load(raw(bytes));
    assertSame(expected, scanned, text);
    DocTable docs = scanned.collections.get("docs");
    JsonNode infinite = docs.inOrder().iterator().next().tree().get("n");
    assertThat(infinite.doubleValue()).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(docs.lookup("n", Json.indexKey(infinite))).hasSize(2);
    assertThat(Json.equal(infinite, Json.NODES.numberNode(Double.POSITIVE_INFINITY))).isTrue();
    assertThat(Json.compare(Json.NODES.numberNode(-1e300), infinite)).isNegative();
    assertThat(Json.compare(Json.NODES.numberNode(Double.NEGATIVE_INFINITY),
        Json.NODES.numberNode(7))).isNegative();
  }

  /**
   * An indexed field's name written with escapes (which the scan decodes, where it compares a
   * plain name's bytes) is found as the parse finds it; an escaped name that is not one is not.
   */
  @Test
  void anIndexedFieldNameWrittenWithEscapesIsFoundAsTheParseFindsIt() throws IOException {
    String text = new String(LedgerJson.canonical(state(doc("a", "x"), doc("b", "y"),
        doc("c", "z"))), StandardCharsets.UTF_8)
        .replace("\"id\":\"a\",\"status\"", "\"id\":\"a\",\"st\\u0061tus\"")
        .replace("\"id\":\"b\",\"status\"", "\"id\":\"b\",\"st\\u0061tu\"")
        .replace("\"id\":\"c\",\"status\"", "\"id\":\"c\",\"\\u00e9\"");
    assertThat(text).contains("st\\u0061tus", "st\\u0061tu\"", "\\u00e9");
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    PartitionView expected = new PartitionView(SCHEMA);
    expected.load(LedgerJson.parse(bytes, 0, bytes.length), 7);
    PartitionView scanned = new PartitionView(SCHEMA);
    scanned.load(raw(bytes));
    assertSame(expected, scanned, text);
    assertThat(scanned.collections.get("docs").lookup("status", Json.indexKey(
        Json.NODES.textNode("x")))).containsExactly("[\"a\"]");
    assertThat(scanned.collections.get("docs").lookup("status", Json.indexKey(
        Json.NODES.textNode("y")))).isEmpty();
  }

  @Test
  void aMalformedDocumentIsRefusedAtOpenNamingTheFile() {
    byte[] bytes = LedgerJson.canonical(state(doc("a", "queued"), doc("b", "x")));
    String text = new String(bytes, StandardCharsets.UTF_8);
    // A raw control character inside a string of the second document's body.
    int at = text.indexOf("\"x\"") + 1;
    bytes[at] = 0x01;
    PartitionView view = new PartitionView(SCHEMA);
    assertThatThrownBy(() -> view.load(raw(bytes)))
        .isInstanceOf(CorruptLedgerException.class)
        .hasMessageContaining("state.json")
        .hasMessageContaining("offset " + at);
  }

  @Test
  void aDocumentKeyTwiceInATableIsRefusedAtOpenWhereItsSecondNameEnds() {
    // The second entry in the store's shape, then in another (found through the tree path).
    for (String second : new String[] {"{\"d\":{\"id\":\"b\",\"status\":\"y\"},\"o\":2}",
        "{\"d\":[1],\"o\":2}"}) {
      String text = "{\"c\":{\"docs\":{\"docs\":{\"k1\":{\"d\":{\"id\":\"a\","
          + "\"status\":\"x\"},\"o\":1},\"k1\":" + second + "},\"next\":3}}}";
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      int at = text.indexOf("\"k1\":", text.indexOf("\"k1\":") + 1) + "\"k1\":".length();
      PartitionView view = new PartitionView(SCHEMA);
      assertThatThrownBy(() -> view.load(raw(bytes)), text)
          .isInstanceOf(CorruptLedgerException.class)
          .hasMessageContaining("state.json")
          .hasMessageContaining("offset " + at)
          .hasMessageContaining("duplicate document key 'k1' in collection 'docs'");
    }
  }

  @Test
  void aDocumentWithADuplicateMemberIsRefusedOnFirstUseNamingTheFile() {
    ObjectNode bad = doc("b", "x");
    bad.put("aa", 1);
    bad.put("ab", 2);
    byte[] bytes = LedgerJson.canonical(state(doc("a", "queued"), bad));
    String text = new String(bytes, StandardCharsets.UTF_8);
    int at = text.indexOf("\"ab\"") + 2;
    bytes[at] = 'a'; // {"aa":1,"aa":2,...}: well-formed, but a member twice
    PartitionView view = new PartitionView(SCHEMA);
    view.load(raw(bytes));
    DocTable table = view.collections.get("docs");
    assertThat(table.get("[\"a\"]").tree().get("status").textValue()).isEqualTo("queued");
    assertThatThrownBy(() -> table.get("[\"b\"]").tree())
        .isInstanceOf(CorruptLedgerException.class)
        .hasMessageContaining("state.json")
        .hasMessageContaining("document '[\"b\"]' of collection 'docs'");
  }

  @Test
  void documentsParsedOnFirstUseFromSeveralThreadsAreOneTreeEach(TestSeed seed) throws Exception {
    Random random = seed.random();
    List<ObjectNode> docs = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      ObjectNode d = body(random, 0);
      d.put("id", "k" + i);
      docs.add(d);
    }
    byte[] bytes = LedgerJson.canonical(state(docs.toArray(ObjectNode[]::new)));
    PartitionView parsed = new PartitionView(SCHEMA);
    parsed.load(LedgerJson.parse(bytes, 0, bytes.length), 7);
    List<ObjectNode> want = new ArrayList<>();
    parsed.collections.get("docs").inOrder().forEach(d -> want.add(d.tree()));
    PartitionView view = new PartitionView(SCHEMA);
    view.load(raw(bytes));
    DocTable table = view.collections.get("docs");
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<List<ObjectNode>>> seen = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        seen.add(pool.submit(() -> {
          List<ObjectNode> trees = new ArrayList<>();
          for (DocTable.Doc doc : table.inOrder()) {
            trees.add(doc.tree());
          }
          return trees;
        }));
      }
      List<ObjectNode> first = seen.get(0).get();
      for (Future<List<ObjectNode>> other : seen) {
        List<ObjectNode> trees = other.get();
        for (int i = 0; i < docs.size(); i++) {
          assertThat(trees.get(i)).as("seed %s doc %s", seed, i).isEqualTo(want.get(i));
        }
      }
      int i = 0;
      for (DocTable.Doc doc : table.inOrder()) {
        // Once published, every later use gets the same tree.
        assertThat(doc.tree()).isSameAs(doc.tree());
        assertThat(doc.tree()).as("seed %s doc %s", seed, i).isEqualTo(first.get(i++));
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * A journal tail folded onto scanned documents (partial updates kept pending with their
   * bytes, see {@link CheckpointDoc#withPatch}) leaves the view the same tail folded onto the
   * parsed tree's documents leaves: documents, ordinals, indexes, sizes and trees, for random
   * partial updates (nested, removing members, changing indexed fields, more than
   * {@link DocTable#MAX_PENDING} to one document), replacements under a new ordinal, deletes,
   * inserts and documents used half way, with indexes deferred as a cold open does or kept.
   */
  @Test
  void aTailFoldedOntoScannedDocumentsIsTheTailFoldedOntoParsedTrees(TestSeed seed)
      throws IOException {
    Random random = seed.random();
    for (int round = 0; round < 200; round++) {
      int n = 1 + random.nextInt(12);
      List<ObjectNode> docs = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        ObjectNode d = body(random, 0);
        d.put("id", "k" + i);
        if (random.nextBoolean()) {
          d.set("status", random.nextBoolean() ? Json.NODES.textNode("s" + random.nextInt(3))
              : value(random, 1));
        }
        docs.add(d);
      }
      byte[] bytes = LedgerJson.canonical(state(docs.toArray(ObjectNode[]::new)));
      boolean defer = random.nextBoolean();
      PartitionView expected = new PartitionView(SCHEMA);
      PartitionView folded = new PartitionView(SCHEMA);
      if (defer) {
        expected.deferIndexes();
        folded.deferIndexes();
      }
      expected.load(LedgerJson.parse(bytes, 0, bytes.length), 7);
      folded.load(raw(bytes));
      StringBuilder as = new StringBuilder("seed " + seed + " round " + round + " defer "
          + defer + ": " + new String(bytes, StandardCharsets.UTF_8));
      long next = n;
      int commits = random.nextInt(40);
      for (int c = 0; c < commits; c++) {
        String key = "[\"k" + random.nextInt(n + 2) + "\"]";
        ObjectNode entries = Json.NODES.objectNode();
        int kind = random.nextInt(20);
        if (kind == 0) {
          entries.putNull(key);
        } else if (kind == 1) {
          ObjectNode entry = entries.putObject(key);
          entry.put("o", next++);
          entry.set("d", body(random, 0));
        } else if (kind == 2) {
          entries.putObject(key).set("d", value(random, 1));
        } else {
          ObjectNode diff = Json.NODES.objectNode();
          int members = 1 + random.nextInt(3);
          for (int m = 0; m < members; m++) {
            String name = random.nextInt(3) == 0 ? "status" : NAMES[random.nextInt(
                NAMES.length)];
            diff.set(name, value(random, 1));
          }
          entries.putObject(key).set("d", diff);
        }
        ObjectNode patch = Json.NODES.objectNode();
        ObjectNode table = patch.putObject("c").putObject("docs");
        table.put("next", next);
        table.set("docs", entries);
        as.append("\n").append(patch);
        LoggedCommit commit = new LoggedCommit(8 + c, Instant.EPOCH, 0, null, patch, List.of(),
            null);
        expected.apply(commit);
        folded.apply(commit);
        if (random.nextInt(10) == 0) {
          // A document used half way: its pending patches are applied, later ones eagerly.
          DocTable.Doc used = folded.collections.get("docs").get(key);
          if (used != null) {
            used.tree();
          }
        }
      }
      if (defer) {
        expected.buildIndexes();
        folded.buildIndexes();
      }
      assertSame(expected, folded, as.toString());
      for (DocTable.Doc doc : expected.collections.get("docs").inOrder()) {
        assertThat(folded.collections.get("docs").get(doc.key).tree()).as(as.toString())
            .isEqualTo(doc.tree());
      }
    }
  }

  private static RawState raw(byte[] bytes) {
    return new RawState(bytes, 0, bytes.length, 7, Instant.EPOCH, 0, FILE);
  }

  private static void useEveryDocument(PartitionView view) {
    for (DocTable table : view.collections.values()) {
      for (DocTable.Doc doc : table.inOrder()) {
        doc.tree();
      }
      // By key too: entries of a damaged state without their ordinal may share one, and then
      // the order by ordinal holds only one of them.
      table.toTree();
    }
  }

  /** The two views hold the same documents, indexes, sizes and tree. */
  private static void assertSame(PartitionView expected, PartitionView scanned, String as) {
    assertThat(scanned.revision).as(as).isEqualTo(expected.revision);
    assertThat(scanned.collections.keySet()).as(as)
        .isEqualTo(expected.collections.keySet());
    for (String name : expected.collections.keySet()) {
      DocTable want = expected.collections.get(name);
      DocTable got = scanned.collections.get(name);
      assertThat(got.size()).as(as).isEqualTo(want.size());
      assertThat(got.next).as(as).isEqualTo(want.next);
      for (String field : want.indexedFields()) {
        for (DocTable.Doc doc : want.inOrder()) {
          String bucket = Json.indexKey(doc.tree().get(field));
          assertThat(got.lookup(field, bucket)).as(as + " index " + field + " " + bucket)
              .containsExactlyElementsOf(want.lookup(field, bucket));
        }
      }
    }
    // Before the trees are written: the sizes of documents still as bytes.
    assertThat(scanned.dataBytes()).as(as).isEqualTo(expected.dataBytes());
    List<String> order = new ArrayList<>();
    List<String> wantOrder = new ArrayList<>();
    for (String name : expected.collections.keySet()) {
      expected.collections.get(name).inOrder().forEach(d -> wantOrder.add(d.key + d.ordinal));
      scanned.collections.get(name).inOrder().forEach(d -> order.add(d.key + d.ordinal));
    }
    assertThat(order).as(as).isEqualTo(wantOrder);
    assertThat(scanned.toTree()).as(as).isEqualTo(expected.toTree());
  }

  private static ObjectNode doc(String id, String status) {
    ObjectNode d = Json.NODES.objectNode();
    d.put("id", id);
    d.put("status", status);
    return d;
  }

  private static ObjectNode state(ObjectNode... docs) {
    return PartitionViewLoadTest.state(docs);
  }

  /** A random state: mostly the store's shape, sometimes not. */
  private static ObjectNode state(Random random) {
    ObjectNode state = Json.NODES.objectNode();
    ObjectNode c = state.putObject("c");
    for (String name : new String[] {"docs", "other"}) {
      if (random.nextInt(8) == 0) {
        continue;
      }
      if (random.nextInt(30) == 0) {
        c.set(name, value(random, 0));
        continue;
      }
      ObjectNode table = c.putObject(name);
      int n = random.nextInt(6);
      if (random.nextInt(20) == 0) {
        table.set("next", value(random, 0));
      } else {
        table.put("next", n + random.nextInt(3));
      }
      if (random.nextInt(30) == 0) {
        table.set("docs", value(random, 0));
        continue;
      }
      ObjectNode docs = table.putObject("docs");
      for (int i = 0; i < n; i++) {
        ObjectNode entry = docs.putObject("[\"" + text(random) + i + "\"]");
        int shape = random.nextInt(25);
        if (shape == 0) {
          entry.put("o", i + 0.5);
        } else if (shape == 1) {
          entry.put("x", 1);
        } else if (shape != 2) {
          entry.put("o", i * 3L);
        }
        if (shape == 3) {
          entry.set("d", value(random, 1));
        } else if (shape != 4) {
          entry.set("d", body(random, 0));
        }
      }
    }
    if (random.nextBoolean()) {
      state.putObject("kv").putObject("counters").put("n", random.nextInt(100));
    }
    if (random.nextInt(4) == 0) {
      state.set("extra", value(random, 0));
    }
    return state;
  }

  private static ObjectNode body(Random random, int depth) {
    ObjectNode body = Json.NODES.objectNode();
    int members = random.nextInt(depth == 0 ? 6 : 3);
    for (int i = 0; i < members; i++) {
      body.set(random.nextInt(3) == 0 ? text(random) : NAMES[random.nextInt(NAMES.length)],
          value(random, depth + 1));
    }
    return body;
  }

  private static JsonNode value(Random random, int depth) {
    switch (random.nextInt(depth > 3 ? 9 : 12)) {
      case 0: return Json.NODES.textNode(text(random, true));
      case 1: return Json.NODES.numberNode(random.nextInt(2001) - 1000);
      case 2: return Json.NODES.numberNode(random.nextLong());
      case 3: return Json.NODES.numberNode(random.nextGaussian() * Math.pow(10,
          random.nextInt(40) - 20));
      case 4: return Json.NODES.numberNode(new BigInteger(90, random).negate());
      case 5: return Json.NODES.numberNode(new BigDecimal(random.nextInt(1000)).scaleByPowerOfTen(
          -random.nextInt(5)));
      case 6: return Json.NODES.booleanNode(random.nextBoolean());
      case 7: return Json.NODES.nullNode();
      case 8: return random.nextBoolean() ? Json.NODES.objectNode() : Json.NODES.arrayNode();
      case 9:
      case 10: return body(random, depth);
      default: {
        ArrayNode array = Json.NODES.arrayNode();
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
          array.add(value(random, depth + 1));
        }
        return array;
      }
    }
  }

  private static String text(Random random) {
    return text(random, false);
  }

  /** Random text; a lone surrogate only in a value (a parser refuses it in a name). */
  private static String text(Random random, boolean value) {
    StringBuilder s = new StringBuilder();
    int n = random.nextInt(8);
    for (int i = 0; i < n; i++) {
      switch (random.nextInt(8)) {
        case 0 -> s.append((char) random.nextInt(0x20));
        case 1 -> s.append("\"\\/");
        case 2 -> s.append("é€");
        case 3 -> s.appendCodePoint(0x1F600 + random.nextInt(50));
        case 4 -> s.append(value ? (char) (0xD800 + random.nextInt(0x800)) : 'w'); // lone
        default -> s.append((char) ('a' + random.nextInt(26)));
      }
    }
    return s.toString();
  }
}
