package dev.ledger.registry.collections;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.lifecycle.Transition;
import dev.ledger.registry.RunRegistry;
import dev.ledger.registry.RunStatus;
import dev.ledger.registry.TransitionDetails;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** What an allowed transition writes into a run document. */
final class RunTransitions {
  private RunTransitions() {}

  /**
   * What an allowed transition writes: the run's key, the fields it sets and the fields it
   * names (a named field missing from {@code tree} is removed; none is).
   */
  record Change(ObjectNode tree, List<String> fields) {
    /**
     * {@code run} (a tree the caller owns) with this change applied as a partial update
     * applies it: each named field set to its value here, or removed when it has none.
     *
     * @return {@code run}, changed in place
     */
    ObjectNode applyTo(ObjectNode run) {
      for (String field : fields) {
        JsonNode value = tree.get(field);
        if (value == null) {
          run.remove(field);
        } else {
          run.set(field, value);
        }
      }
      return run;
    }
  }

  /**
   * The fields a transition changes, for a partial update of the stored run: status,
   * revision, {@code updatedAtMs}, the timestamps the step stamps, and the pid, return code and
   * (truncated) failure summary the details carry. Everything else stays as stored.
   */
  static Change change(String id, Transition<RunStatus> step, long revision, long now,
      TransitionDetails details) {
    ObjectNode tree = JsonNodeFactory.instance.objectNode();
    List<String> fields = new ArrayList<>(8);
    tree.put("id", id);
    tree.put(RunTrees.STATUS, step.to().wireName());
    fields.add(RunTrees.STATUS);
    set(tree, fields, RunTrees.REVISION, revision);
    set(tree, fields, RunTrees.UPDATED_AT_MS, now);
    stamp(tree, fields, step, RunStatus.STARTED_AT, RunTrees.STARTED_AT_MS);
    stamp(tree, fields, step, RunStatus.COMPLETED_AT, RunTrees.COMPLETED_AT_MS);
    stamp(tree, fields, step, RunStatus.CANCEL_REQUESTED_AT, RunTrees.CANCEL_REQUESTED_AT_MS);
    if (details.pid() != null) {
      set(tree, fields, RunTrees.PID, details.pid());
    }
    if (details.returnCode() != null) {
      tree.put(RunTrees.RETURN_CODE, details.returnCode().intValue());
      fields.add(RunTrees.RETURN_CODE);
    }
    if (details.failureSummary() != null) {
      tree.put(RunTrees.FAILURE_SUMMARY, truncate(details.failureSummary()));
      fields.add(RunTrees.FAILURE_SUMMARY);
    }
    return new Change(tree, fields);
  }

  private static void set(ObjectNode tree, List<String> fields, String field, long value) {
    RunTrees.number(tree, field, value);
    fields.add(field);
  }

  private static void stamp(ObjectNode tree, List<String> fields, Transition<RunStatus> step,
      String stamp, String field) {
    Instant at = step.stamps().get(stamp);
    if (at != null) {
      set(tree, fields, field, at.toEpochMilli());
    }
  }

  /** The first {@value RunRegistry#FAILURE_SUMMARY_LIMIT} characters, not splitting a pair. */
  static String truncate(String summary) {
    if (summary.length() <= RunRegistry.FAILURE_SUMMARY_LIMIT) {
      return summary;
    }
    int end = RunRegistry.FAILURE_SUMMARY_LIMIT;
    if (Character.isHighSurrogate(summary.charAt(end - 1))) {
      end--;
    }
    return summary.substring(0, end);
  }

  /** The timestamp fields a stored run already carries, for first-entry stamps. */
  static Set<String> stamped(JsonNode run) {
    Set<String> out = new HashSet<>(4);
    if (present(run, RunTrees.STARTED_AT_MS)) {
      out.add(RunStatus.STARTED_AT);
    }
    if (present(run, RunTrees.COMPLETED_AT_MS)) {
      out.add(RunStatus.COMPLETED_AT);
    }
    if (present(run, RunTrees.CANCEL_REQUESTED_AT_MS)) {
      out.add(RunStatus.CANCEL_REQUESTED_AT);
    }
    return out;
  }

  private static boolean present(JsonNode run, String field) {
    JsonNode value = run.get(field);
    return value != null && !value.isNull();
  }
}
