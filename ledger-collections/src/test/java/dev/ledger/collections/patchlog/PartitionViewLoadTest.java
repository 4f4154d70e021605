package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.collections.CollectionOptions;
import dev.ledger.collections.CollectionStore;
import dev.ledger.collections.Key;
import dev.ledger.collections.Schema;
import dev.ledger.core.memory.InMemoryLedgerStore;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A view that loads a checkpoint keeps the checkpoint's document trees rather than copying
 * them: it must then never change one, since the log shares its checkpoint tree with every
 * reader (the in-memory store hands out the very tree it keeps). And a checkpoint document
 * with null members is loaded as the fold of the journal would hold it, without them.
 */
class PartitionViewLoadTest {
  /**
   * A document.
   *
   * @param id the key
   * @param status indexed
   * @param note not indexed
   */
  public record Doc(String id, String status, String note) {}

  private static final Schema SCHEMA = Schema.builder()
      .collection("docs", Doc.class, List.of("id"), List.of("status"))
      .build();

  /** A partition state of one collection, "docs", holding {@code docs} keyed by id. */
  static ObjectNode state(ObjectNode... docs) {
    ObjectNode state = Json.NODES.objectNode();
    ObjectNode table = state.putObject("c").putObject("docs");
    table.put("next", docs.length);
    ObjectNode entries = table.putObject("docs");
    for (int i = 0; i < docs.length; i++) {
      ObjectNode entry = entries.putObject("[\"" + docs[i].get("id").textValue() + "\"]");
      entry.put("o", i);
      entry.set("d", docs[i]);
    }
    return state;
  }

  private static ObjectNode doc(String id, String status) {
    ObjectNode d = Json.NODES.objectNode();
    d.put("id", id);
    d.put("status", status);
    d.putObject("meta").put("note", "n");
    return d;
  }

  @Test
  void patchesAfterALoadLeaveTheLoadedTreeAsItWas() {
    ObjectNode state = state(doc("a", "queued"), doc("b", "queued"));
    JsonNode before = state.deepCopy();
    PartitionView view = new PartitionView(SCHEMA);
    view.load(state, 4);
    ObjectNode patch = Json.NODES.objectNode();
    ObjectNode docs = patch.putObject("c").putObject("docs").putObject("docs");
    docs.putObject("[\"a\"]").putObject("d").put("status", "running").putObject("meta")
        .put("note", "m");
    ObjectNode moved = docs.putObject("[\"b\"]");
    moved.put("o", 9);
    moved.putObject("d").put("status", "again");
    view.applyPatch(patch, 5);

    assertThat(state).isEqualTo(before);
    DocTable table = view.collections.get("docs");
    assertThat(table.get("[\"a\"]").tree().get("status").textValue()).isEqualTo("running");
    assertThat(table.get("[\"a\"]").tree().at("/meta/note").textValue()).isEqualTo("m");
    assertThat(table.get("[\"b\"]").tree().get("status").textValue()).isEqualTo("again");
    assertThat(table.lookup("status", Json.indexKey(Json.NODES.textNode("queued")))).isEmpty();
  }

  @Test
  void aCheckpointDocumentWithNullMembersLoadsWithoutThem() {
    ObjectNode withNulls = doc("a", "queued");
    withNulls.putNull("gone");
    ((ObjectNode) withNulls.get("meta")).putNull("also");
    PartitionView view = new PartitionView(SCHEMA);
    view.load(state(withNulls), 2);

    JsonNode loaded = view.collections.get("docs").get("[\"a\"]").tree();
    assertThat(loaded).isEqualTo(doc("a", "queued"));
  }

  @Test
  void aStoreThatOpensFromAnInMemoryCheckpointDoesNotChangeIt() {
    InMemoryLedgerStore ledgers = InMemoryLedgerStore.create();
    // A checkpoint after every commit.
    CollectionOptions options = CollectionOptions.defaults().withCheckpoints(0.000_001, 0);
    CollectionStore first = PatchLogCollectionStore.on(ledgers, SCHEMA, options);
    first.execute("p", tx -> {
      tx.collection("docs", Doc.class).insert(List.of(new Doc("a", "queued", "x")));
      return null;
    });
    JsonNode checkpoint = ledgers.patchLog("p").checkpoint().orElseThrow().state();
    JsonNode before = checkpoint.deepCopy();

    CollectionStore second = PatchLogCollectionStore.on(ledgers, SCHEMA,
        CollectionOptions.defaults());
    second.execute("p", tx -> {
      tx.collection("docs", Doc.class).update(List.of(new Doc("a", "running", "y")));
      return null;
    });

    assertThat(checkpoint).isEqualTo(before);
    Optional<Doc> seen = first.read("p", v -> v.collection("docs", Doc.class)
        .get(Key.of("a")));
    assertThat(seen).contains(new Doc("a", "running", "y"));
  }
}
