package dev.ledger.registry.collections;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.registry.RunOwner;
import dev.ledger.registry.RunStatus;
import java.util.List;

/**
 * A run as the {@code runs} collection stores it (see {@link CollectionRunRegistry} for the
 * layout). Times are epoch milliseconds of the store's clock.
 */
record RunDoc(String id, String workspaceId, String externalRunId, String firstRunId,
    int attemptNumber, String binding, String pipeline, String workflow, RunStatus status,
    long revision, String planChecksum, JsonNode request, List<String> commandArgv,
    String runRelativePath, String approvedPlanRelativePath, String launchLogRelativePath,
    RunOwner owner, String ownerImplementation, Long pid, Long startedAtMs, Long completedAtMs,
    Integer returnCode, String failureSummary, Long cancelRequestedAtMs, long createdAtMs,
    long updatedAtMs) {

  RunDoc withPid(Long value) {
    return new RunDoc(id, workspaceId, externalRunId, firstRunId, attemptNumber, binding,
        pipeline, workflow, status, revision, planChecksum, request, commandArgv,
        runRelativePath, approvedPlanRelativePath, launchLogRelativePath, owner,
        ownerImplementation, value, startedAtMs, completedAtMs, returnCode, failureSummary,
        cancelRequestedAtMs, createdAtMs, updatedAtMs);
  }
}
