package dev.ledger.registry.collections;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.registry.RunOwner;
import dev.ledger.registry.RunStatus;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The hand-written trees of runs and events are the stored form data binding wrote before
 * them (registries written by earlier versions read back, and new ones read the same), and a
 * document survives the round trip through its tree.
 */
class RunTreesTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aFullRunIsWrittenAsDataBindingWroteIt() throws Exception {
    RunDoc doc = new RunDoc("r-1", "ws", "ext-1", "ext-0", 3, "binding", "pipeline", "main",
        RunStatus.CANCEL_REQUESTED, 7, "sha", JSON.readTree("{\"a\":{\"b\":[1,2,null]},\"n\":null}"),
        List.of("run", "--flag"), "runs/1", "plans/1.json", "logs/1.log",
        RunOwner.local("impl", "inst-1"), "impl", 4242L, 1_796_081_480_054L,
        1_796_081_480_099L, 3, "boom", 1_796_081_480_060L, 1_796_081_480_000L,
        1_796_081_480_099L);
    assertSameAsDataBinding(doc);
    assertThat(RunTrees.doc(RunTrees.tree(doc))).isEqualTo(doc);
  }

  @Test
  void absentFieldsAreLeftOutAndReadBackAbsent() {
    RunDoc doc = new RunDoc("r-2", "ws", "ext-2", "ext-2", 1, null, null, null,
        RunStatus.STARTING, 1, null, null, null, "runs/2", null, null, null, null, null, null,
        null, null, null, null, 5L, 6L);
    assertSameAsDataBinding(doc);
    assertThat(RunTrees.doc(RunTrees.tree(doc))).isEqualTo(doc);
  }

  @Test
  void eventsAreWrittenAsDataBindingWroteThem() {
    ObjectNode details = JSON.createObjectNode().put("returnCode", 2).put("note", "x");
    EventDoc changed = new EventDoc("r-1", 5, "status_changed", RunStatus.RUNNING,
        RunStatus.FAILED, details, 3_000_000_000L);
    EventDoc allocated = new EventDoc("r-1", 1, "run_allocated", null, RunStatus.STARTING,
        JSON.createObjectNode(), 9L);
    for (EventDoc event : List.of(changed, allocated)) {
      ObjectNode tree = RunTrees.event(event.runId(), event.sequence(), event.type(),
          event.from(), event.to(), event.details(), event.createdAtMs());
      assertThat(fieldOrder(tree)).isEqualTo(fieldOrder(bound(event)));
      assertThat(tree).isEqualTo(bound(event));
      assertThat(RunTrees.eventDoc(tree)).isEqualTo(event);
    }
  }

  @Test
  void workspacesAreWrittenAsDataBindingWroteThem() {
    WorkspaceDoc doc = new WorkspaceDoc("ws", "/srv/ws", "ws", 3_000_000_000L, 12L);
    ObjectNode tree = RunTrees.tree(doc);
    assertThat(fieldOrder(tree)).isEqualTo(fieldOrder(bound(doc)));
    assertThat(tree).isEqualTo(bound(doc));
    assertThat(RunTrees.workspace(tree)).isEqualTo(doc);
  }

  private static void assertSameAsDataBinding(RunDoc doc) {
    ObjectNode raw = RunTrees.tree(doc);
    // The store drops null members inside the request as it drops them everywhere.
    ObjectNode tree = (ObjectNode) canonical(raw);
    ObjectNode bound = bound(doc);
    assertThat(fieldOrder(raw)).isEqualTo(fieldOrder(bound));
    assertThat(tree).isEqualTo(bound);
    // Numbers as the store keeps them: ints where they fit, longs otherwise.
    assertThat(raw.get("revision").isInt()).isTrue();
    assertThat(raw.get("createdAtMs").isInt()).isEqualTo(doc.createdAtMs()
        == (int) doc.createdAtMs());
  }

  /** What the store kept of a record before: data binding, then nulls dropped, ints canonical. */
  private static ObjectNode bound(Object value) {
    return (ObjectNode) canonical(JSON.valueToTree(value));
  }

  private static JsonNode canonical(JsonNode node) {
    if (node.isObject()) {
      ObjectNode copy = JSON.createObjectNode();
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        if (!field.getValue().isNull()) {
          copy.set(field.getKey(), canonical(field.getValue()));
        }
      }
      return copy;
    }
    if (node.isIntegralNumber() && node.canConvertToInt()) {
      return JSON.getNodeFactory().numberNode(node.intValue());
    }
    return node;
  }

  private static List<String> fieldOrder(JsonNode node) {
    List<String> out = new ArrayList<>();
    Iterator<String> names = node.fieldNames();
    names.forEachRemaining(out::add);
    return out;
  }
}
