package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.ledger.collections.Key;
import dev.ledger.collections.Query;
import dev.ledger.collections.Schema;
import dev.ledger.core.memory.InMemoryLedgerStore;
import dev.ledger.core.spi.LoggedCommit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A store's own commit installs the transaction's documents into its view as written
 * (replacing a document at its ordinal moves only the index buckets that changed), and the
 * patch it gave the patch log may hold the same trees (the SPI lets a log keep it): the view,
 * its indexes included, must end as a cold fold of the journal, after its own commits and
 * after other stores' commits folded into installed documents; and the log's patches stay as
 * they were written.
 */
class OwnCommitInstallTest {
  /**
   * A document.
   *
   * @param id the key
   * @param status indexed
   * @param meta a nested object, changed in place by a merge patch
   */
  public record Doc(String id, String status, Map<String, Integer> meta) {}

  private static final Schema SCHEMA = Schema.builder()
      .collection("docs", Doc.class, List.of("id"), List.of("status"))
      .queue("work", Doc.class)
      .build();

  private static JsonNode journal(InMemoryLedgerStore store) {
    try (Stream<LoggedCommit> commits = store.patchLog("p").commitsAfter(0)) {
      ArrayNode out = Json.NODES.arrayNode();
      for (LoggedCommit c : (Iterable<LoggedCommit>) commits::iterator) {
        out.add(c.patch() != null ? c.patch().deepCopy() : c.state().deepCopy());
      }
      return out;
    }
  }

  @Test
  void foreignCommitsFoldedIntoInstalledDocumentsLeaveTheJournalAsWritten() {
    InMemoryLedgerStore store = InMemoryLedgerStore.create();
    PatchLogCollectionStore mine = PatchLogCollectionStore.on(store, SCHEMA);
    PatchLogCollectionStore theirs = PatchLogCollectionStore.on(store, SCHEMA);
    mine.execute("p", tx -> {
      tx.collection("docs", Doc.class).insert(List.of(new Doc("a", "queued", Map.of("n", 1)),
          new Doc("b", "queued", Map.of("n", 1))));
      return null;
    });
    JsonNode written = journal(store);
    theirs.execute("p", tx -> {
      var docs = tx.collection("docs", Doc.class);
      // Folded into mine's view: an update merged into "a" (DocTable.patch), and "b" deleted
      // and inserted again at a new ordinal (PartitionView.applyDoc), both installed by mine.
      docs.update(List.of(new Doc("a", "done", Map.of("n", 3, "m", 4))));
      docs.delete(List.of(new Doc("b", "queued", Map.of())));
      docs.insert(List.of(new Doc("b", "again", Map.of("n", 5))));
      return null;
    });
    mine.execute("p", tx -> tx.collection("docs", Doc.class).update(List.of(
        new Doc("a", "checked", Map.of("n", 3, "m", 4)))));
    List<Doc> seen = mine.read("p", v -> v.collection("docs", Doc.class).query(Query.all())
        .items());
    assertThat(seen).containsExactly(new Doc("a", "checked", Map.of("n", 3, "m", 4)),
        new Doc("b", "again", Map.of("n", 5)));
    List<Doc> queued = mine.read("p", v -> v.collection("docs", Doc.class).query(
        Query.builder().exact("status", "queued").build()).items());
    assertThat(queued).isEmpty();
    for (String status : List.of("done", "checked")) {
      List<Doc> byStatus = mine.read("p", v -> v.collection("docs", Doc.class).query(
          Query.builder().exact("status", status).build()).items());
      assertThat(byStatus).as(status).isEqualTo(status.equals("checked")
          ? List.of(seen.get(0)) : List.of());
    }
    assertThat(journal(store).get(0)).isEqualTo(written.get(0));
    PatchLogCollectionStore cold = PatchLogCollectionStore.on(store, SCHEMA);
    List<Doc> folded = cold.read("p", v -> v.collection("docs", Doc.class).query(Query.all())
        .items());
    assertThat(folded).isEqualTo(seen);
    Optional<Doc> a = mine.read("p", v -> v.collection("docs", Doc.class).get(Key.of("a")));
    assertThat(a).contains(new Doc("a", "checked", Map.of("n", 3, "m", 4)));
  }

  /** The view's whole state tree as text, and its data bytes, as a read of it sees them. */
  private static String viewOf(PatchLogCollectionStore store) {
    return store.read("p", v -> {
      PartitionView view = ((TxContext) v).view;
      return Json.text(view.toTree()) + " " + view.dataBytes();
    });
  }

  @Test
  void ownQueueWritesInstallWhatAColdFoldOfTheJournalHolds() {
    InMemoryLedgerStore store = InMemoryLedgerStore.create();
    PatchLogCollectionStore mine = PatchLogCollectionStore.on(store, SCHEMA);
    PatchLogCollectionStore theirs = PatchLogCollectionStore.on(store, SCHEMA);
    mine.execute("p", tx -> {
      tx.queue("work", Doc.class).enqueue(List.of(new Doc("a", "x", Map.of("n", 1)),
          new Doc("b", "\u00e9t\u00e9", Map.of()), new Doc("c", "x", Map.of("n", 2))));
      return null;
    });
    theirs.execute("p", tx -> {
      tx.queue("work", Doc.class).dequeue(1);
      tx.queue("work", Doc.class).enqueue(List.of(new Doc("d", "y", Map.of())));
      return null;
    });
    mine.execute("p", tx -> {
      var work = tx.queue("work", Doc.class);
      // Two of the view's items taken, one enqueued and taken again, two enqueued.
      assertThat(work.dequeue(2)).extracting(Doc::id).containsExactly("b", "c");
      work.enqueue(List.of(new Doc("e", "z", Map.of("n", 3))));
      assertThat(work.dequeue(2)).extracting(Doc::id).containsExactly("d", "e");
      work.enqueue(List.of(new Doc("f", "z", Map.of()), new Doc("g", "z", Map.of("n", 4))));
      return null;
    });
    JsonNode written = journal(store);
    mine.execute("p", tx -> tx.queue("work", Doc.class).dequeue(1));
    assertThat(viewOf(mine)).isEqualTo(viewOf(PatchLogCollectionStore.on(store, SCHEMA)));
    List<Doc> left = mine.read("p", v -> v.queue("work", Doc.class).peek(10));
    assertThat(left).extracting(Doc::id).containsExactly("g");
    // The items installed are the trees the log's patches hold: they stay as written.
    assertThat(journal(store).get(2)).isEqualTo(written.get(2));
  }
}
