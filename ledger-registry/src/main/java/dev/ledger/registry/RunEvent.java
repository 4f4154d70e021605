package dev.ledger.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.common.base.Preconditions;
import java.time.Instant;

/**
 * One event of a run's history, as {@link RunRegistry#runEvents} returns it:
 * {@value #RUN_ALLOCATED} at sequence 1, then one
 * {@value dev.ledger.core.lifecycle.StatusChanged#TYPE} per transition whose sequence equals
 * the run's revision after it.
 *
 * @param runId the run's registry id
 * @param sequence the event's number in the run's history, equal to the run's revision after it
 * @param type {@value #RUN_ALLOCATED} or {@value dev.ledger.core.lifecycle.StatusChanged#TYPE}
 * @param from the status left, or null for {@value #RUN_ALLOCATED}
 * @param to the status entered
 * @param details the event's details, a JSON object
 * @param createdAt when it was recorded (store clock, millisecond precision)
 */
public record RunEvent(String runId, long sequence, String type, RunStatus from, RunStatus to,
    JsonNode details, Instant createdAt) {
  /** The type of a run's first event. */
  public static final String RUN_ALLOCATED = "run_allocated";

  /**
   * Checks the fields.
   *
   * @param runId the run
   * @param sequence the sequence, at least 1
   * @param type the type
   * @param from the status left, or null
   * @param to the status entered
   * @param details the details
   * @param createdAt the time
   * @throws NullPointerException if a field other than {@code from} is null
   * @throws IllegalArgumentException if the sequence is below 1
   */
  public RunEvent {
    Preconditions.checkNotNull(runId, "runId");
    Preconditions.checkArgument(sequence >= 1, "sequence must be >= 1: %s", sequence);
    Preconditions.checkNotNull(type, "type");
    Preconditions.checkNotNull(to, "to");
    Preconditions.checkNotNull(details, "details");
    details = details.deepCopy();
    Preconditions.checkNotNull(createdAt, "createdAt");
  }

  /**
   * The details (a copy).
   *
   * @return a JSON object
   */
  @Override
  public JsonNode details() {
    return details.deepCopy();
  }
}
