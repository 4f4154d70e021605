package dev.ledger.examples;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.ledger.core.lifecycle.Lifecycle;

/** Where a task of the plan stands. */
public enum TaskStatus {
  /** Not dispatched: waiting for its dependencies or for a worker to dispatch it. */
  @JsonProperty("waiting") WAITING,
  /** An operation for its next attempt is pending. */
  @JsonProperty("queued") QUEUED,
  /** A worker runs its current attempt. */
  @JsonProperty("running") RUNNING,
  /** An attempt succeeded (terminal). */
  @JsonProperty("succeeded") SUCCEEDED,
  /** Every allowed attempt failed (terminal). */
  @JsonProperty("failed") FAILED,
  /** A dependency failed, so it never ran (terminal). */
  @JsonProperty("skipped") SKIPPED;

  private static final Lifecycle<TaskStatus> LIFECYCLE = Lifecycle
      .forEnum(TaskStatus.class, TaskStatus::wireName)
      .initial(WAITING)
      .allow(WAITING, QUEUED, SKIPPED)
      .allow(QUEUED, RUNNING)
      // Back to queued: recovery re-runs the attempt; back to waiting: a failed or cancelled
      // attempt with attempts left.
      .allow(RUNNING, SUCCEEDED, FAILED, WAITING, QUEUED)
      .terminal(SUCCEEDED, FAILED, SKIPPED)
      .build();

  /**
   * The task lifecycle: waiting -> queued or skipped; queued -> running; running ->
   * succeeded, failed, waiting (retry) or queued (recovery). {@link Task} checks every change
   * of status against it.
   */
  public static Lifecycle<TaskStatus> lifecycle() {
    return LIFECYCLE;
  }

  /** Whether nothing will change this task any more. */
  public boolean terminal() {
    return LIFECYCLE.isTerminal(this);
  }

  /** The name used in the ledger and in event types. */
  public String wireName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
