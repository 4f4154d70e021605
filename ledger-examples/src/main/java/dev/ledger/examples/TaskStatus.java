package dev.ledger.examples;

import com.fasterxml.jackson.annotation.JsonProperty;

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

  /** Whether nothing will change this task any more. */
  public boolean terminal() {
    return this == SUCCEEDED || this == FAILED || this == SKIPPED;
  }

  /** The name used in the ledger and in event types. */
  public String wireName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
