package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.collections.Key;
import dev.ledger.collections.Query;
import dev.ledger.collections.Schema;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.memory.InMemoryLedgerStore;
import dev.ledger.core.spi.LoggedCommit;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@link Json#plainTree} gives, without the mapper, the tree the library's mapper and
 * {@link Json#withoutNulls} give: node for node (the JSON text and the node classes, since
 * stored trees must equal their re-read form), and nothing for what only data binding maps.
 */
class PlainTreeTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static JsonNode throughMapper(Object value) {
    return Json.withoutNulls(MAPPER.valueToTree(value));
  }

  @Test
  void aTreeIsCopiedAsTheMapperWouldMapItWithoutNullsAndWithParsedNumbers() {
    ObjectNode tree = Json.NODES.objectNode();
    tree.put("text", "a\u00e9\"\n");
    tree.put("int", 7);
    tree.put("longSmall", 7L);
    tree.put("longBig", 1L << 40);
    tree.put("short", (short) 3);
    tree.put("float", 1.5f);
    tree.put("double", 2.25);
    tree.put("decimal", new BigDecimal("3.125"));
    tree.put("bigInteger", new BigInteger("123456789012345678901234567890"));
    tree.put("bigIntegerSmall", BigInteger.valueOf(5));
    tree.put("flag", true);
    tree.putNull("gone");
    tree.put("binary", new byte[] {1, 2, 3});
    ObjectNode nested = tree.putObject("nested");
    nested.putNull("alsoGone");
    nested.put("kept", 1L);
    ArrayNode array = tree.putArray("array");
    array.addNull();
    array.add(2L);
    array.addObject().putNull("x");
    tree.putObject("empty");

    JsonNode copy = Json.plainTree(tree);

    SameTrees.assertSameTree(copy, throughMapper(tree));
    assertThat(copy.has("gone")).isFalse();
    assertThat(copy.get("nested").has("alsoGone")).isFalse();
    assertThat(copy.get("array").get(0).isNull()).isTrue();
  }

  @Test
  void theCopySharesNoContainerWithTheCallersTree() {
    ObjectNode tree = Json.NODES.objectNode();
    tree.putObject("nested").put("n", 1);
    tree.putArray("list").add(1);

    JsonNode copy = Json.plainTree(tree);
    ((ObjectNode) tree.get("nested")).put("n", 2);
    ((ArrayNode) tree.get("list")).add(2);

    assertThat(copy.get("nested").get("n").asInt()).isEqualTo(1);
    assertThat(copy.get("list").size()).isEqualTo(1);
  }

  @Test
  void stringsAndBooleansMapAsTheMapperMapsThem() {
    SameTrees.assertSameTree(Json.plainTree("key-1"), throughMapper("key-1"));
    SameTrees.assertSameTree(Json.plainTree(Boolean.TRUE), throughMapper(Boolean.TRUE));
  }

  @Test
  void aNullTreeStaysNullSoThatTheCallerRefusesIt() {
    assertThat(Json.plainTree(Json.NODES.nullNode()).isNull()).isTrue();
  }

  @Test
  void whatOnlyDataBindingMapsIsLeftToTheMapper() {
    ObjectNode withPojo = Json.NODES.objectNode();
    withPojo.putPOJO("bean", Map.of("a", 1));
    assertThat(Json.plainTree(withPojo)).isNull();
    assertThat(Json.plainTree(Json.NODES.arrayNode().addPOJO(List.of(1)))).isNull();
    assertThat(Json.plainTree(Json.NODES.missingNode())).isNull();
    assertThat(Json.plainTree(5L)).isNull();
    assertThat(Json.plainTree(Map.of("a", 1))).isNull();
    assertThat(Json.plainTree(null)).isNull();
  }

  @Test
  void aTreeNestedDeeperThanTheBoundIsLeftToTheMapper() {
    ObjectNode shallow = Json.NODES.objectNode();
    ObjectNode deep = Json.NODES.objectNode();
    ObjectNode inner = shallow;
    for (int i = 0; i < Json.PLAIN_DEPTH - 1; i++) {
      inner = inner.putObject("n");
    }
    inner = deep;
    for (int i = 0; i < Json.PLAIN_DEPTH; i++) {
      inner = inner.putObject("n");
    }
    SameTrees.assertSameTree(Json.plainTree(shallow), throughMapper(shallow));
    assertThat(Json.plainTree(deep)).isNull();
    assertThat(Json.plainTree(Json.NODES.arrayNode().add(deep))).isNull();
  }

  private static final Schema SCHEMA = Schema.builder()
      .collection("docs", ObjectNode.class, List.of("id"), List.of("status"))
      .build();

  /** The same writes through the copy (library mapper) and through Jackson (customized). */
  private static JsonNode patchesOf(LedgerOptions options) {
    InMemoryLedgerStore store = InMemoryLedgerStore.create(options);
    PatchLogCollectionStore collections = PatchLogCollectionStore.on(store, SCHEMA);
    ObjectNode doc = Json.NODES.objectNode();
    doc.put("id", "a");
    doc.put("status", "queued");
    doc.put("small", 7L);
    doc.put("big", 1L << 40);
    doc.put("ratio", 0.5f);
    doc.put("decimal", new BigDecimal("1.25"));
    doc.putNull("gone");
    doc.putObject("meta").put("n", 1).putNull("x");
    doc.putArray("tags").add("t").addNull().add(3);
    collections.execute("p", tx -> {
      tx.collection("docs", ObjectNode.class).insert(List.of(doc));
      return null;
    });
    ObjectNode status = Json.NODES.objectNode().put("id", "a").put("status", "running")
        .put("small", 8);
    collections.execute("p", tx -> tx.collection("docs", ObjectNode.class)
        .update(List.of(status), List.of("status", "small")));
    collections.execute("p", tx -> tx.collection("docs", ObjectNode.class)
        .get(Key.of("a")).orElseThrow());
    ObjectNode replaced = doc.deepCopy();
    replaced.put("status", "done");
    ((ObjectNode) replaced.get("meta")).put("n", 2.5);
    collections.execute("p", tx -> tx.collection("docs", ObjectNode.class)
        .update(List.of(replaced)));
    collections.execute("p", tx -> {
      tx.collection("docs", ObjectNode.class).delete(List.of(status));
      return null;
    });
    try (Stream<LoggedCommit> commits = store.patchLog("p").commitsAfter(0)) {
      ArrayNode out = Json.NODES.arrayNode();
      for (LoggedCommit c : (Iterable<LoggedCommit>) commits::iterator) {
        out.add(c.patch() != null ? c.patch().deepCopy() : c.state().deepCopy());
      }
      return out;
    }
  }

  @Test
  void theSameWritesCommitTheSamePatchesWithTheCopyAsThroughTheMapper() {
    JsonNode copied = patchesOf(LedgerOptions.defaults());
    // Any customizer, even one that changes nothing, sends every value through Jackson.
    JsonNode mapped = patchesOf(LedgerOptions.defaults().withMapper(builder -> { }));

    assertThat(copied.size()).isEqualTo(4);
    SameTrees.assertSameTree(copied, mapped);
  }

  /** A tree handed out is the caller's: changing it changes neither the view nor the log. */
  @Test
  void aTreeReadBackIsACopyTheCallerMayChange() {
    InMemoryLedgerStore store = InMemoryLedgerStore.create(LedgerOptions.defaults());
    PatchLogCollectionStore collections = PatchLogCollectionStore.on(store, SCHEMA);
    ObjectNode doc = Json.NODES.objectNode().put("id", "a").put("status", "queued");
    doc.putObject("meta").put("n", 1);
    collections.execute("p", tx -> {
      tx.collection("docs", ObjectNode.class).insert(List.of(doc));
      return null;
    });
    ObjectNode read = collections.read("p", view -> view.collection("docs", ObjectNode.class)
        .get(Key.of("a")).orElseThrow());
    read.put("status", "changed");
    ((ObjectNode) read.get("meta")).put("n", 99);
    ObjectNode inTx = collections.execute("p", tx -> {
      ObjectNode got = tx.collection("docs", ObjectNode.class).get(Key.of("a")).orElseThrow();
      got.put("status", "changed in the callback");
      return got;
    });
    inTx.remove("meta");

    ObjectNode again = collections.read("p", view -> view.collection("docs", ObjectNode.class)
        .get(Key.of("a")).orElseThrow());
    assertThat(again).isEqualTo(doc);
    List<ObjectNode> queued = collections.read("p", view -> view.collection("docs",
        ObjectNode.class).query(Query.builder().exact("status", "queued").build()).items());
    assertThat(queued).containsExactly(doc);
  }
}
