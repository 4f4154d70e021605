package dev.ledger.registry.collections;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.ledger.registry.RunRecord;
import dev.ledger.registry.Workspace;
import java.time.Instant;
import java.util.List;

/** Stored documents to the public records: epoch milliseconds to instants, absent to empty. */
final class RunDocuments {
  private RunDocuments() {}

  static RunRecord toRecord(RunDoc doc, String workspaceDir) {
    return new RunRecord(doc.id(), doc.workspaceId(), workspaceDir, doc.externalRunId(),
        doc.firstRunId(), doc.attemptNumber(), doc.binding(), doc.pipeline(), doc.workflow(),
        doc.status(), doc.revision(), doc.planChecksum(),
        doc.request() == null ? JsonNodeFactory.instance.objectNode() : doc.request(),
        doc.commandArgv() == null ? List.of() : doc.commandArgv(), doc.runRelativePath(),
        doc.approvedPlanRelativePath(), doc.launchLogRelativePath(), doc.owner(), doc.pid(),
        instant(doc.startedAtMs()), instant(doc.completedAtMs()), doc.returnCode(),
        doc.failureSummary(), instant(doc.cancelRequestedAtMs()),
        Instant.ofEpochMilli(doc.createdAtMs()), Instant.ofEpochMilli(doc.updatedAtMs()));
  }

  static Workspace toWorkspace(WorkspaceDoc doc) {
    return new Workspace(doc.id(), doc.canonicalPath(), doc.displayName(),
        Instant.ofEpochMilli(doc.createdAtMs()), Instant.ofEpochMilli(doc.lastSeenAtMs()));
  }

  private static Instant instant(Long millis) {
    return millis == null ? null : Instant.ofEpochMilli(millis);
  }
}
