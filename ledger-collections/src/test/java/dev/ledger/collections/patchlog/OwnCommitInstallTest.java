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
}
