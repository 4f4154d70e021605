package dev.ledger.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.common.base.Preconditions;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * A registered run as the registry holds it. Times are the store's clock at millisecond
 * precision.
 *
 * @param id the registry id (a random UUID)
 * @param workspaceId the workspace the run lives in
 * @param workspaceDir the workspace's canonical path
 * @param externalRunId the caller's run id
 * @param firstRunId the external id of its lineage's first run (its own for a first run)
 * @param attemptNumber its attempt number within the lineage, from 1
 * @param binding the binding
 * @param pipeline the pipeline
 * @param workflow the workflow
 * @param status where it stands
 * @param revision its revision: 1 when allocated, one more per transition
 * @param planChecksum the approved plan's checksum
 * @param request the launch request, a JSON object
 * @param commandArgv the command line; unmodifiable
 * @param runRelativePath the run directory, relative to the workspace
 * @param approvedPlanRelativePath the approved plan file, relative to the workspace
 * @param launchLogRelativePath the launch log, relative to the workspace
 * @param owner the daemon that owns its process, or null
 * @param pid the job's process id, or null
 * @param startedAt the first entry to running, or null
 * @param completedAt the entry to a terminal status, or null
 * @param returnCode the job's exit code, or null
 * @param failureSummary why it failed (at most {@value RunRegistry#FAILURE_SUMMARY_LIMIT}
 *     characters), or null
 * @param cancelRequestedAt the last entry to cancel_requested, or null
 * @param createdAt when it was allocated
 * @param updatedAt its last transition, or its allocation
 */
public record RunRecord(String id, String workspaceId, String workspaceDir, String externalRunId,
    String firstRunId, int attemptNumber, String binding, String pipeline, String workflow,
    RunStatus status, long revision, String planChecksum, JsonNode request,
    List<String> commandArgv, String runRelativePath, String approvedPlanRelativePath,
    String launchLogRelativePath, RunOwner owner, Long pid, Instant startedAt,
    Instant completedAt, Integer returnCode, String failureSummary, Instant cancelRequestedAt,
    Instant createdAt, Instant updatedAt) {
  /**
   * Checks and copies.
   *
   * @param id the registry id
   * @param workspaceId the workspace id
   * @param workspaceDir the workspace path
   * @param externalRunId the external id
   * @param firstRunId the first run id
   * @param attemptNumber the attempt
   * @param binding the binding
   * @param pipeline the pipeline
   * @param workflow the workflow
   * @param status the status
   * @param revision the revision
   * @param planChecksum the checksum
   * @param request the request
   * @param commandArgv the command line
   * @param runRelativePath the run directory
   * @param approvedPlanRelativePath the plan file
   * @param launchLogRelativePath the launch log
   * @param owner the owner, or null
   * @param pid the pid, or null
   * @param startedAt the start, or null
   * @param completedAt the end, or null
   * @param returnCode the exit code, or null
   * @param failureSummary the summary, or null
   * @param cancelRequestedAt the cancel request, or null
   * @param createdAt the allocation
   * @param updatedAt the last change
   * @throws NullPointerException if a field documented as present is null
   */
  public RunRecord {
    Preconditions.checkNotNull(id, "id");
    Preconditions.checkNotNull(workspaceId, "workspaceId");
    Preconditions.checkNotNull(workspaceDir, "workspaceDir");
    Preconditions.checkNotNull(externalRunId, "externalRunId");
    Preconditions.checkNotNull(firstRunId, "firstRunId");
    Preconditions.checkNotNull(status, "status");
    Preconditions.checkNotNull(request, "request");
    request = request.deepCopy();
    commandArgv = List.copyOf(commandArgv);
    Preconditions.checkNotNull(createdAt, "createdAt");
    Preconditions.checkNotNull(updatedAt, "updatedAt");
  }

  /**
   * The launch request (a copy).
   *
   * @return a JSON object
   */
  @Override
  public JsonNode request() {
    return request.deepCopy();
  }

  /**
   * The run directory.
   *
   * @return the workspace path resolved against the run's relative path
   */
  public Path runDirectory() {
    return Path.of(workspaceDir).resolve(runRelativePath);
  }

  /**
   * The approved plan file.
   *
   * @return the workspace path resolved against the plan's relative path
   */
  public Path approvedPlanPath() {
    return Path.of(workspaceDir).resolve(approvedPlanRelativePath);
  }

  /**
   * The launch log.
   *
   * @return the workspace path resolved against the log's relative path
   */
  public Path launchLogPath() {
    return Path.of(workspaceDir).resolve(launchLogRelativePath);
  }

  /**
   * Whether the run can still change status.
   *
   * @return true unless its status is terminal
   */
  public boolean isActive() {
    return !status.isTerminal();
  }
}
