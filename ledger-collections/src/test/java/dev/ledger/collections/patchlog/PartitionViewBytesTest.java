package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.collections.Schema;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The data bytes the checkpoint policy weighs: a view that loads a checkpoint or folds the
 * journal measures its documents only when asked, and then agrees with the compact JSON of
 * what it holds, through inserts, patches, replacements and deletes before and after that.
 */
class PartitionViewBytesTest {
  /**
   * A document.
   *
   * @param id the key
   * @param status indexed
   */
  public record Doc(String id, String status) {}

  private static final Schema SCHEMA = Schema.builder()
      .collection("docs", Doc.class, List.of("id"), List.of("status"))
      .build();

  private static ObjectNode doc(String id, String status) {
    ObjectNode d = Json.NODES.objectNode();
    d.put("id", id);
    d.put("status", status);
    return d;
  }

  private static ObjectNode docsPatch(ObjectNode docs) {
    ObjectNode patch = Json.NODES.objectNode();
    patch.putObject("c").putObject("docs").set("docs", docs);
    return patch;
  }

  /** The compact JSON of every document the view holds. */
  private static long measured(PartitionView view) {
    long total = 0;
    for (DocTable.Doc d : view.collections.get("docs").inOrder()) {
      total += Json.bytes(d.tree());
    }
    return total;
  }

  @Test
  void dataBytesAreTheDocumentsSizesWhetherMeasuredAtLoadOrLater() {
    ObjectNode state = Json.NODES.objectNode();
    ObjectNode table = state.putObject("c").putObject("docs");
    table.put("next", 3);
    ObjectNode docs = table.putObject("docs");
    for (int i = 0; i < 3; i++) {
      ObjectNode entry = docs.putObject("[\"k" + i + "\"]");
      entry.put("o", i);
      entry.set("d", doc("k" + i, "queued"));
    }
    PartitionView view = new PartitionView(SCHEMA);
    view.load(state, 5);
    // Patched, replaced and deleted before anything was measured.
    ObjectNode early = Json.NODES.objectNode();
    early.putObject("[\"k0\"]").putObject("d").put("status", "running-for-a-long-time");
    early.putNull("[\"k1\"]");
    ObjectNode replaced = early.putObject("[\"k2\"]");
    replaced.put("o", 7);
    replaced.set("d", doc("k2", "x"));
    view.applyPatch(docsPatch(early), 6);
    assertThat(view.dataBytes()).isEqualTo(measured(view)).isPositive();
    // Then after measuring: an insert, a patch, a delete.
    ObjectNode late = Json.NODES.objectNode();
    ObjectNode inserted = late.putObject("[\"k9\"]");
    inserted.put("o", 8);
    inserted.set("d", doc("k9", "queued"));
    late.putObject("[\"k0\"]").putObject("d").put("status", "done");
    view.applyPatch(docsPatch(late), 7);
    assertThat(view.dataBytes()).isEqualTo(measured(view));
    ObjectNode gone = Json.NODES.objectNode();
    gone.putNull("[\"k0\"]");
    gone.putObject("[\"k9\"]").putObject("d").put("status", "running");
    view.applyPatch(docsPatch(gone), 8);
    assertThat(view.dataBytes()).isEqualTo(measured(view))
        .isEqualTo(Json.bytes(doc("k2", "x")) + Json.bytes(doc("k9", "running")));
    JsonNode k9 = view.collections.get("docs").get("[\"k9\"]").tree();
    assertThat(k9.get("status").asText()).isEqualTo("running");
  }
}
