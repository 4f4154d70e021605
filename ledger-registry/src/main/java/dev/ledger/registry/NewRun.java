package dev.ledger.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.google.common.base.Preconditions;
import java.util.List;

/**
 * What {@link RunRegistry#allocateRun} registers. Build one with {@link #builder}.
 *
 * @param workspaceId the registered workspace the run lives in
 * @param externalRunId the caller's run id, unique across the registry
 * @param binding the binding (what the run is bound to: a project, a tenant)
 * @param pipeline the pipeline it runs
 * @param workflow the workflow within the pipeline
 * @param planChecksum the checksum of the approved plan
 * @param request the launch request, a JSON object (copied)
 * @param commandArgv the command line launched; unmodifiable
 * @param runRelativePath the run directory, relative to the workspace
 * @param approvedPlanRelativePath the approved plan file, relative to the workspace
 * @param launchLogRelativePath the launch log, relative to the workspace
 * @param firstRunId the external id of the lineage's first run, or null for a first run (it
 *     then becomes {@code externalRunId})
 * @param attemptNumber the attempt number within the lineage, from 1
 * @param owner the daemon that owns the run's process, or null
 */
public record NewRun(String workspaceId, String externalRunId, String binding, String pipeline,
    String workflow, String planChecksum, JsonNode request, List<String> commandArgv,
    String runRelativePath, String approvedPlanRelativePath, String launchLogRelativePath,
    String firstRunId, int attemptNumber, RunOwner owner) {
  /**
   * Checks and copies.
   *
   * @param workspaceId the workspace
   * @param externalRunId the external run id, not empty
   * @param binding the binding
   * @param pipeline the pipeline
   * @param workflow the workflow
   * @param planChecksum the plan checksum
   * @param request a JSON object, or null for an empty one
   * @param commandArgv the command line
   * @param runRelativePath the run directory
   * @param approvedPlanRelativePath the plan file
   * @param launchLogRelativePath the launch log
   * @param firstRunId the lineage's first run id, or null
   * @param attemptNumber the attempt, at least 1
   * @param owner the owner, or null
   * @throws NullPointerException if a field other than {@code request}, {@code firstRunId}
   *     and {@code owner} is null, or an argument of the command line is
   * @throws IllegalArgumentException if an id is empty, the attempt is below 1, or the request
   *     is not a JSON object
   */
  public NewRun {
    Preconditions.checkNotNull(workspaceId, "workspaceId");
    Preconditions.checkNotNull(externalRunId, "externalRunId");
    Preconditions.checkArgument(!externalRunId.isEmpty(), "externalRunId is empty");
    Preconditions.checkNotNull(binding, "binding");
    Preconditions.checkNotNull(pipeline, "pipeline");
    Preconditions.checkNotNull(workflow, "workflow");
    Preconditions.checkNotNull(planChecksum, "planChecksum");
    request = request == null || request.isNull() ? JsonNodeFactory.instance.objectNode()
        : request.deepCopy();
    Preconditions.checkArgument(request.isObject(), "request must be a JSON object: %s",
        request);
    commandArgv = List.copyOf(commandArgv);
    Preconditions.checkNotNull(runRelativePath, "runRelativePath");
    Preconditions.checkNotNull(approvedPlanRelativePath, "approvedPlanRelativePath");
    Preconditions.checkNotNull(launchLogRelativePath, "launchLogRelativePath");
    Preconditions.checkArgument(firstRunId == null || !firstRunId.isEmpty(),
        "firstRunId is empty (use null for a first run)");
    Preconditions.checkArgument(attemptNumber >= 1, "attemptNumber must be >= 1: %s",
        attemptNumber);
  }

  /**
   * The request as given (a copy).
   *
   * @return the request object
   */
  @Override
  public JsonNode request() {
    return request.deepCopy();
  }

  /**
   * A builder for a run of {@code externalRunId} in {@code workspaceId}; every other text
   * field defaults to empty, the command line to none, the paths to {@code runs/<id>},
   * {@code runs/<id>/plan.json} and {@code runs/<id>/launch.log}, attempt 1, no owner.
   *
   * @param workspaceId the workspace
   * @param externalRunId the external run id
   * @return the builder
   * @throws NullPointerException if an argument is null
   */
  public static Builder builder(String workspaceId, String externalRunId) {
    return new Builder(workspaceId, externalRunId);
  }

  /** Collects the fields of a {@link NewRun}; not thread-safe. */
  public static final class Builder {
    private final String workspaceId;
    private final String externalRunId;
    private String binding = "";
    private String pipeline = "";
    private String workflow = "";
    private String planChecksum = "";
    private JsonNode request;
    private List<String> commandArgv = List.of();
    private String runRelativePath;
    private String approvedPlanRelativePath;
    private String launchLogRelativePath;
    private String firstRunId;
    private int attemptNumber = 1;
    private RunOwner owner;

    private Builder(String workspaceId, String externalRunId) {
      this.workspaceId = Preconditions.checkNotNull(workspaceId, "workspaceId");
      this.externalRunId = Preconditions.checkNotNull(externalRunId, "externalRunId");
      this.runRelativePath = "runs/" + externalRunId;
      this.approvedPlanRelativePath = runRelativePath + "/plan.json";
      this.launchLogRelativePath = runRelativePath + "/launch.log";
    }

    /**
     * Sets the binding.
     *
     * @param value the binding
     * @return this builder
     */
    public Builder binding(String value) {
      binding = value;
      return this;
    }

    /**
     * Sets the pipeline.
     *
     * @param value the pipeline
     * @return this builder
     */
    public Builder pipeline(String value) {
      pipeline = value;
      return this;
    }

    /**
     * Sets the workflow.
     *
     * @param value the workflow
     * @return this builder
     */
    public Builder workflow(String value) {
      workflow = value;
      return this;
    }

    /**
     * Sets the plan checksum.
     *
     * @param value the checksum
     * @return this builder
     */
    public Builder planChecksum(String value) {
      planChecksum = value;
      return this;
    }

    /**
     * Sets the launch request.
     *
     * @param value a JSON object
     * @return this builder
     */
    public Builder request(JsonNode value) {
      request = value;
      return this;
    }

    /**
     * Sets the command line.
     *
     * @param value the arguments
     * @return this builder
     */
    public Builder commandArgv(List<String> value) {
      commandArgv = value;
      return this;
    }

    /**
     * Sets the run directory, relative to the workspace.
     *
     * @param value the relative path
     * @return this builder
     */
    public Builder runRelativePath(String value) {
      runRelativePath = value;
      return this;
    }

    /**
     * Sets the approved plan file, relative to the workspace.
     *
     * @param value the relative path
     * @return this builder
     */
    public Builder approvedPlanRelativePath(String value) {
      approvedPlanRelativePath = value;
      return this;
    }

    /**
     * Sets the launch log, relative to the workspace.
     *
     * @param value the relative path
     * @return this builder
     */
    public Builder launchLogRelativePath(String value) {
      launchLogRelativePath = value;
      return this;
    }

    /**
     * Makes this run an attempt of a lineage.
     *
     * @param lineageFirstRunId the external id of the lineage's first run
     * @param attempt the attempt number, from 1
     * @return this builder
     */
    public Builder attemptOf(String lineageFirstRunId, int attempt) {
      firstRunId = lineageFirstRunId;
      attemptNumber = attempt;
      return this;
    }

    /**
     * Sets the owning daemon.
     *
     * @param value the owner, or null
     * @return this builder
     */
    public Builder owner(RunOwner value) {
      owner = value;
      return this;
    }

    /**
     * The run.
     *
     * @return the new run
     * @throws NullPointerException if a required field was set to null
     * @throws IllegalArgumentException as {@link NewRun}
     */
    public NewRun build() {
      return new NewRun(workspaceId, externalRunId, binding, pipeline, workflow, planChecksum,
          request, commandArgv, runRelativePath, approvedPlanRelativePath,
          launchLogRelativePath, firstRunId, attemptNumber, owner);
    }
  }
}
