package dev.ledger.registry.collections;

import dev.ledger.core.lifecycle.Transition;
import dev.ledger.registry.RunRegistry;
import dev.ledger.registry.RunStatus;
import dev.ledger.registry.TransitionDetails;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;

/** What an allowed transition writes into a run document. */
final class RunTransitions {
  private RunTransitions() {}

  static RunDoc apply(RunDoc doc, Transition<RunStatus> step, long revision, long now,
      TransitionDetails details) {
    Long startedAt = stamp(step, RunStatus.STARTED_AT, doc.startedAtMs());
    Long completedAt = stamp(step, RunStatus.COMPLETED_AT, doc.completedAtMs());
    Long cancelRequestedAt = stamp(step, RunStatus.CANCEL_REQUESTED_AT,
        doc.cancelRequestedAtMs());
    String summary = details.failureSummary() == null ? doc.failureSummary()
        : truncate(details.failureSummary());
    return new RunDoc(doc.id(), doc.workspaceId(), doc.externalRunId(), doc.firstRunId(),
        doc.attemptNumber(), doc.binding(), doc.pipeline(), doc.workflow(), step.to(),
        revision, doc.planChecksum(), doc.request(), doc.commandArgv(), doc.runRelativePath(),
        doc.approvedPlanRelativePath(), doc.launchLogRelativePath(), doc.owner(),
        doc.ownerImplementation(), details.pid() == null ? doc.pid() : details.pid(),
        startedAt, completedAt,
        details.returnCode() == null ? doc.returnCode() : details.returnCode(), summary,
        cancelRequestedAt, doc.createdAtMs(), now);
  }

  private static Long stamp(Transition<RunStatus> step, String field, Long current) {
    Instant at = step.stamps().get(field);
    return at == null ? current : Long.valueOf(at.toEpochMilli());
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

  /** The timestamp fields a run already carries, for first-entry stamps. */
  static Set<String> stamped(RunDoc doc) {
    Set<String> out = new HashSet<>();
    if (doc.startedAtMs() != null) {
      out.add(RunStatus.STARTED_AT);
    }
    if (doc.completedAtMs() != null) {
      out.add(RunStatus.COMPLETED_AT);
    }
    if (doc.cancelRequestedAtMs() != null) {
      out.add(RunStatus.CANCEL_REQUESTED_AT);
    }
    return out;
  }
}
