package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.collections.Key;
import dev.ledger.collections.Query;
import dev.ledger.collections.Schema;
import dev.ledger.core.memory.InMemoryLedgerStore;
import dev.ledger.core.spi.LoggedCommit;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A store's own commit installs the transaction's documents into its view as written, and
 * the patch it gave the patch log may hold the same trees (the in-memory store keeps it): a
 * later commit of another store, folded into the view, must neither change those trees in
 * place (the journal would change under its readers) nor leave the view other than a fold
 * of the journal from scratch gives.
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
      return Json.NODES.arrayNode().addAll(commits.map(c -> c.patch() != null
          ? c.patch().deepCopy() : c.state().deepCopy()).collect(Collectors.toList()));
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
    List<Doc> seen = mine.read("p", v -> v.collection("docs", Doc.class).query(Query.all())
        .items());
    assertThat(seen).containsExactly(new Doc("a", "done", Map.of("n", 3, "m", 4)),
        new Doc("b", "again", Map.of("n", 5)));
    assertThat(mine.read("p", v -> v.collection("docs", Doc.class).query(Query.builder()
        .exact("status", "queued").build()).items())).isEmpty();
    assertThat(journal(store).get(0)).isEqualTo(written.get(0));
    PatchLogCollectionStore cold = PatchLogCollectionStore.on(store, SCHEMA);
    assertThat(cold.read("p", v -> v.collection("docs", Doc.class).query(Query.all())
        .items())).isEqualTo(seen);
    assertThat(mine.read("p", v -> v.collection("docs", Doc.class).get(Key.of("a"))))
        .contains(new Doc("a", "done", Map.of("n", 3, "m", 4)));
  }
}
