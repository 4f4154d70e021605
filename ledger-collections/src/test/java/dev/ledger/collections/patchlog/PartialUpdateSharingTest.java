package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.collections.DocumentNotFoundException;
import dev.ledger.collections.Key;
import dev.ledger.collections.Schema;
import dev.ledger.core.memory.InMemoryLedgerStore;
import dev.ledger.core.spi.LoggedCommit;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A partial update ({@code update(items, fields)}) builds the new document as a shallow copy
 * of the stored one: the fields it does not name keep the stored nodes. Nested nodes are then
 * held by two document versions, by the patch the log keeps and by the tree the update
 * returned; none of them may change when later commits (this store's, or another store's
 * folded in) change those nested fields.
 */
class PartialUpdateSharingTest {
  private static final Schema SCHEMA = Schema.builder()
      .collection("docs", ObjectNode.class, List.of("id"), List.of("status"))
      .build();

  private static ObjectNode doc(String status, int n) {
    ObjectNode doc = Json.NODES.objectNode();
    doc.put("id", "a");
    doc.put("status", status);
    doc.putObject("meta").put("n", n);
    doc.putArray("tags").add("t" + n);
    return doc;
  }

  private static ObjectNode nested(int n) {
    ObjectNode change = Json.NODES.objectNode();
    change.put("id", "a");
    change.putObject("meta").put("n", n).put("m", n);
    return change;
  }

  private static JsonNode journal(InMemoryLedgerStore store) {
    try (Stream<LoggedCommit> commits = store.patchLog("p").commitsAfter(0)) {
      ArrayNode out = Json.NODES.arrayNode();
      for (LoggedCommit c : (Iterable<LoggedCommit>) commits::iterator) {
        out.add(c.patch() != null ? c.patch().deepCopy() : c.state().deepCopy());
      }
      return out;
    }
  }

  private static ObjectNode stored(PatchLogCollectionStore store) {
    return store.read("p", v -> v.collection("docs", ObjectNode.class).get(Key.of("a"))
        .orElseThrow().deepCopy());
  }

  @Test
  void nestedNodesKeptByAPartialUpdateChangeNowhereWhenLaterCommitsChangeThem() {
    InMemoryLedgerStore store = InMemoryLedgerStore.create();
    PatchLogCollectionStore mine = PatchLogCollectionStore.on(store, SCHEMA);
    PatchLogCollectionStore theirs = PatchLogCollectionStore.on(store, SCHEMA);
    mine.execute("p", tx -> {
      tx.collection("docs", ObjectNode.class).insert(List.of(doc("queued", 1)));
      return null;
    });
    // Folded into mine's view: its document is merged in place from then on (not shared).
    theirs.execute("p", tx -> tx.collection("docs", ObjectNode.class).update(
        List.of(nested(2)), List.of("meta")));
    assertThat(stored(mine).get("meta").get("n").asInt()).isEqualTo(2);

    ObjectNode status = Json.NODES.objectNode().put("id", "a").put("status", "running");
    ObjectNode returned = mine.execute("p", tx -> tx.collection("docs", ObjectNode.class)
        .update(List.of(status), List.of("status")).get(0));
    ObjectNode returnedCopy = returned.deepCopy();
    JsonNode written = journal(store);

    // Nested changes after the partial update: another store's, folded into mine's view,
    // then mine's own, then a whole-document replace of mine.
    theirs.execute("p", tx -> tx.collection("docs", ObjectNode.class).update(
        List.of(nested(3)), List.of("meta")));
    ObjectNode afterTheirs = stored(mine);
    mine.execute("p", tx -> tx.collection("docs", ObjectNode.class).update(
        List.of(nested(4)), List.of("meta")));
    mine.execute("p", tx -> tx.collection("docs", ObjectNode.class).update(
        List.of(doc("done", 5))));

    assertThat(returned).isEqualTo(returnedCopy);
    assertThat(returned.get("meta").get("n").asInt()).isEqualTo(2);
    assertThat(afterTheirs.get("status").asText()).isEqualTo("running");
    assertThat(afterTheirs.get("meta").get("n").asInt()).isEqualTo(3);
    JsonNode later = journal(store);
    for (int i = 0; i < written.size(); i++) {
      assertThat(later.get(i)).isEqualTo(written.get(i));
    }
    ObjectNode cold = stored(PatchLogCollectionStore.on(store, SCHEMA));
    assertThat(stored(mine)).isEqualTo(cold);
    assertThat(stored(theirs)).isEqualTo(cold);
    assertThat(cold).isEqualTo(doc("done", 5));
  }

  @Test
  void aRefusedTransactionLeavesTheStoredDocumentAsItWas() {
    InMemoryLedgerStore store = InMemoryLedgerStore.create();
    PatchLogCollectionStore mine = PatchLogCollectionStore.on(store, SCHEMA);
    PatchLogCollectionStore theirs = PatchLogCollectionStore.on(store, SCHEMA);
    mine.execute("p", tx -> {
      tx.collection("docs", ObjectNode.class).insert(List.of(doc("queued", 1)));
      return null;
    });
    theirs.execute("p", tx -> tx.collection("docs", ObjectNode.class).update(
        List.of(nested(2)), List.of("meta")));
    ObjectNode before = stored(mine);
    ObjectNode status = Json.NODES.objectNode().put("id", "a").put("status", "running");
    try {
      mine.execute("p", tx -> {
        tx.collection("docs", ObjectNode.class).update(List.of(status), List.of("status"));
        throw new IllegalStateException("refused");
      });
    } catch (IllegalStateException expected) {
      // nothing written
    }
    theirs.execute("p", tx -> tx.collection("docs", ObjectNode.class).update(
        List.of(nested(3)), List.of("meta")));

    assertThat(before.get("status").asText()).isEqualTo("queued");
    ObjectNode cold = stored(PatchLogCollectionStore.on(store, SCHEMA));
    assertThat(stored(mine)).isEqualTo(cold);
    assertThat(cold.get("status").asText()).isEqualTo("queued");
    assertThat(cold.get("meta").get("m").asInt()).isEqualTo(3);
  }

  /** The payloads of the events of every commit, in order. */
  private static List<JsonNode> eventPayloads(InMemoryLedgerStore store) {
    try (Stream<LoggedCommit> commits = store.patchLog("p").commitsAfter(0)) {
      List<JsonNode> out = new ArrayList<>();
      commits.forEach(c -> c.events().forEach(e -> out.add(e.payload().deepCopy())));
      return out;
    }
  }

  @Test
  void updateFieldsWritesWhatUpdateWritesAndRefusesWhatItRefuses() {
    InMemoryLedgerStore viaUpdate = InMemoryLedgerStore.create();
    InMemoryLedgerStore viaFields = InMemoryLedgerStore.create();
    PatchLogCollectionStore a = PatchLogCollectionStore.on(viaUpdate, SCHEMA);
    PatchLogCollectionStore b = PatchLogCollectionStore.on(viaFields, SCHEMA);
    for (PatchLogCollectionStore s : List.of(a, b)) {
      s.execute("p", tx -> {
        tx.collection("docs", ObjectNode.class).insert(List.of(doc("queued", 1)));
        return null;
      });
    }
    // A changed field, a nested one, a field added, and one named without a value (removed).
    ObjectNode change = nested(2).put("status", "running").put("extra", 7);
    List<String> fields = List.of("status", "meta", "extra", "tags");
    a.execute("p", tx -> tx.collection("docs", ObjectNode.class).update(List.of(change),
        fields));
    b.execute("p", tx -> {
      tx.collection("docs", ObjectNode.class).updateFields(List.of(change), fields);
      // The transaction reads its own write.
      assertThat(tx.collection("docs", ObjectNode.class).get(Key.of("a")).orElseThrow()
          .get("extra").asInt()).isEqualTo(7);
      return null;
    });

    assertThat(journal(viaFields)).isEqualTo(journal(viaUpdate));
    assertThat(eventPayloads(viaFields)).isEqualTo(eventPayloads(viaUpdate));
    ObjectNode cold = stored(PatchLogCollectionStore.on(viaFields, SCHEMA));
    assertThat(cold).isEqualTo(stored(PatchLogCollectionStore.on(viaUpdate, SCHEMA)));
    assertThat(cold.has("tags")).isFalse();
    assertThat(cold.get("meta").get("m").asInt()).isEqualTo(2);
    assertThat(stored(b)).isEqualTo(cold);

    ObjectNode missing = Json.NODES.objectNode().put("id", "b").put("status", "x");
    assertThatThrownBy(() -> b.execute("p", tx -> {
      tx.collection("docs", ObjectNode.class).updateFields(List.of(missing),
          List.of("status"));
      return null;
    })).isInstanceOf(DocumentNotFoundException.class);
    assertThatThrownBy(() -> b.execute("p", tx -> {
      tx.collection("docs", ObjectNode.class).updateFields(List.of(change), null);
      return null;
    })).isInstanceOf(NullPointerException.class);
    assertThat(journal(viaFields)).isEqualTo(journal(viaUpdate));
  }
}
