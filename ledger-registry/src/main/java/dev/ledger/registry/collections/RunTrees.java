package dev.ledger.registry.collections;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.registry.RunOwner;
import dev.ledger.registry.RunStatus;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Run, event and workspace documents to and from the JSON trees the {@code runs} and {@code runEvents}
 * collections hold, written by hand: the trees are the stored form (see
 * {@link CollectionRunRegistry} for the layout), so a transition reads and writes only the
 * fields it touches instead of mapping whole documents through Jackson's data binding both
 * ways. Members come in the order of the record components, absent values are left out (as
 * the store drops null members), and numbers are ints when they fit (as the store keeps
 * them), so a tree written here equals the one data binding wrote for the same document.
 *
 * <p>A {@link RunDoc} read from a stored tree shares its {@code request} with it: read it
 * only inside the callback that gave the tree, and copy it (as {@link
 * dev.ledger.registry.RunRecord} does) before it leaves.
 */
final class RunTrees {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  static final String STATUS = "status";
  static final String REVISION = "revision";
  static final String PID = "pid";
  static final String STARTED_AT_MS = "startedAtMs";
  static final String COMPLETED_AT_MS = "completedAtMs";
  static final String RETURN_CODE = "returnCode";
  static final String FAILURE_SUMMARY = "failureSummary";
  static final String CANCEL_REQUESTED_AT_MS = "cancelRequestedAtMs";
  static final String UPDATED_AT_MS = "updatedAtMs";

  private RunTrees() {}

  /** The stored tree of {@code doc}. */
  static ObjectNode tree(RunDoc doc) {
    ObjectNode t = NODES.objectNode();
    t.put("id", doc.id());
    t.put("workspaceId", doc.workspaceId());
    t.put("externalRunId", doc.externalRunId());
    text(t, "firstRunId", doc.firstRunId());
    t.set("attemptNumber", NODES.numberNode(doc.attemptNumber()));
    text(t, "binding", doc.binding());
    text(t, "pipeline", doc.pipeline());
    text(t, "workflow", doc.workflow());
    t.put(STATUS, doc.status().wireName());
    number(t, REVISION, doc.revision());
    text(t, "planChecksum", doc.planChecksum());
    if (doc.request() != null) {
      t.set("request", doc.request().deepCopy());
    }
    if (doc.commandArgv() != null) {
      ArrayNode argv = t.putArray("commandArgv");
      doc.commandArgv().forEach(argv::add);
    }
    text(t, "runRelativePath", doc.runRelativePath());
    text(t, "approvedPlanRelativePath", doc.approvedPlanRelativePath());
    text(t, "launchLogRelativePath", doc.launchLogRelativePath());
    if (doc.owner() != null) {
      ObjectNode owner = t.putObject("owner");
      owner.put("implementation", doc.owner().implementation());
      owner.put("instanceId", doc.owner().instanceId());
      owner.put("targetId", doc.owner().targetId());
    }
    text(t, "ownerImplementation", doc.ownerImplementation());
    number(t, PID, doc.pid());
    number(t, STARTED_AT_MS, doc.startedAtMs());
    number(t, COMPLETED_AT_MS, doc.completedAtMs());
    if (doc.returnCode() != null) {
      t.set(RETURN_CODE, NODES.numberNode(doc.returnCode().intValue()));
    }
    text(t, FAILURE_SUMMARY, doc.failureSummary());
    number(t, CANCEL_REQUESTED_AT_MS, doc.cancelRequestedAtMs());
    number(t, "createdAtMs", doc.createdAtMs());
    number(t, UPDATED_AT_MS, doc.updatedAtMs());
    return t;
  }

  /** The document a stored tree holds; its request is the tree's own (see the class). */
  static RunDoc doc(JsonNode t) {
    JsonNode argv = t.get("commandArgv");
    List<String> commandArgv = null;
    if (argv != null && argv.isArray()) {
      List<String> values = new ArrayList<>(argv.size());
      argv.forEach(value -> values.add(value.isNull() ? null : value.asText()));
      commandArgv = Collections.unmodifiableList(values);
    }
    JsonNode owner = t.get("owner");
    JsonNode request = t.get("request");
    JsonNode returnCode = t.get(RETURN_CODE);
    return new RunDoc(text(t, "id"), text(t, "workspaceId"), text(t, "externalRunId"),
        text(t, "firstRunId"), t.path("attemptNumber").asInt(), text(t, "binding"),
        text(t, "pipeline"), text(t, "workflow"), status(t), t.path(REVISION).asLong(),
        text(t, "planChecksum"), request == null || request.isNull() ? null : request,
        commandArgv, text(t, "runRelativePath"), text(t, "approvedPlanRelativePath"),
        text(t, "launchLogRelativePath"),
        owner == null || !owner.isObject() ? null : new RunOwner(text(owner, "implementation"),
            text(owner, "instanceId"), text(owner, "targetId")),
        text(t, "ownerImplementation"), longOrNull(t, PID), longOrNull(t, STARTED_AT_MS),
        longOrNull(t, COMPLETED_AT_MS),
        returnCode == null || returnCode.isNull() ? null : returnCode.asInt(),
        text(t, FAILURE_SUMMARY), longOrNull(t, CANCEL_REQUESTED_AT_MS),
        t.path("createdAtMs").asLong(), t.path(UPDATED_AT_MS).asLong());
  }

  /** The status of a stored run tree. */
  static RunStatus status(JsonNode t) {
    return RunStatus.of(text(t, STATUS));
  }

  /** The stored tree of a run event. */
  static ObjectNode event(String runId, long sequence, String type, RunStatus from,
      RunStatus to, JsonNode details, long createdAtMs) {
    ObjectNode t = NODES.objectNode();
    t.put("runId", runId);
    number(t, "sequence", sequence);
    t.put("type", type);
    if (from != null) {
      t.put("from", from.wireName());
    }
    if (to != null) {
      t.put("to", to.wireName());
    }
    if (details != null && !details.isNull()) {
      t.set("details", details);
    }
    number(t, "createdAtMs", createdAtMs);
    return t;
  }

  /** The event a stored tree holds. */
  static EventDoc eventDoc(JsonNode t) {
    String from = text(t, "from");
    String to = text(t, "to");
    JsonNode details = t.get("details");
    return new EventDoc(text(t, "runId"), t.path("sequence").asLong(), text(t, "type"),
        from == null ? null : RunStatus.of(from), to == null ? null : RunStatus.of(to),
        details == null || details.isNull() ? null : details.deepCopy(),
        t.path("createdAtMs").asLong());
  }

  /** The stored tree of a workspace. */
  static ObjectNode tree(WorkspaceDoc doc) {
    ObjectNode t = NODES.objectNode();
    t.put("id", doc.id());
    t.put("canonicalPath", doc.canonicalPath());
    text(t, "displayName", doc.displayName());
    number(t, "createdAtMs", doc.createdAtMs());
    number(t, "lastSeenAtMs", doc.lastSeenAtMs());
    return t;
  }

  /** The workspace a stored tree holds. */
  static WorkspaceDoc workspace(JsonNode t) {
    return new WorkspaceDoc(text(t, "id"), text(t, "canonicalPath"), text(t, "displayName"),
        t.path("createdAtMs").asLong(), t.path("lastSeenAtMs").asLong());
  }

  /** {@code value} as the store keeps a number: an int node when it fits. */
  static void number(ObjectNode t, String field, Long value) {
    if (value != null) {
      long v = value;
      t.set(field, v == (int) v ? NODES.numberNode((int) v) : NODES.numberNode(v));
    }
  }

  private static void text(ObjectNode t, String field, String value) {
    if (value != null) {
      t.put(field, value);
    }
  }

  static String text(JsonNode t, String field) {
    JsonNode value = t.get(field);
    return value == null || value.isNull() ? null : value.asText();
  }

  static Long longOrNull(JsonNode t, String field) {
    JsonNode value = t.get(field);
    return value == null || value.isNull() ? null : value.asLong();
  }
}
