package dev.ledger.examples;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.ledger.core.lifecycle.Lifecycle;

/**
 * The life of a background operation (one attempt of one task): {@code pending} until a
 * worker claims it, {@code running} while that worker works, {@code stop_requested} when the
 * orchestrator asked it to stop, then one terminal state. Operations in the first three
 * states are <em>recoverable</em>: a restarted orchestrator must bring each one to an end.
 */
public enum OperationStatus {
  /** Dispatched, not claimed yet. */
  @JsonProperty("pending") PENDING,
  /** Claimed by the worker named as owner. */
  @JsonProperty("running") RUNNING,
  /** The orchestrator asked the owner to stop; the owner acknowledges by cancelling. */
  @JsonProperty("stop_requested") STOP_REQUESTED,
  /** The attempt produced its output (terminal). */
  @JsonProperty("succeeded") SUCCEEDED,
  /** The attempt failed (terminal). */
  @JsonProperty("failed") FAILED,
  /** The attempt was stopped before it finished (terminal). */
  @JsonProperty("cancelled") CANCELLED;

  private static final Lifecycle<OperationStatus> LIFECYCLE = Lifecycle
      .forEnum(OperationStatus.class, OperationStatus::wireName)
      .initial(PENDING)
      .allow(PENDING, RUNNING)
      // Back to pending: recovery hands an attempt whose owner died to a new worker.
      .allow(RUNNING, STOP_REQUESTED, SUCCEEDED, FAILED, PENDING)
      .allow(STOP_REQUESTED, CANCELLED)
      .terminal(SUCCEEDED, FAILED, CANCELLED)
      .build();

  /**
   * The operation lifecycle: pending -> running -> stop_requested, succeeded, failed or back
   * to pending (recovery); stop_requested -> cancelled. {@link Operation} checks every change
   * of status against it.
   */
  public static Lifecycle<OperationStatus> lifecycle() {
    return LIFECYCLE;
  }

  /** Whether a restarted orchestrator must still act on an operation in this state. */
  public boolean recoverable() {
    return this == PENDING || this == RUNNING || this == STOP_REQUESTED;
  }

  /** The name used in the ledger and in event types. */
  public String wireName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
