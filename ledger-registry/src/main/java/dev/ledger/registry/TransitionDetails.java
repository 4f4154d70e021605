package dev.ledger.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.google.common.base.Preconditions;

/**
 * What a caller tells {@link RunRegistry#transitionRun} besides the target status. Non-null
 * fields are stored on the run (null leaves the run's value as it is); the return code and
 * {@code extra} also go into the {@code status_changed} event's details.
 *
 * @param pid the job's process id, or null
 * @param returnCode the job's exit code, or null
 * @param failureSummary why it failed, or null; stored truncated to
 *     {@value RunRegistry#FAILURE_SUMMARY_LIMIT} characters
 * @param extra more details for the event, a JSON object (copied) of at most
 *     {@value RunRegistry#MAX_DETAILS_BYTES} bytes as compact JSON, or null
 */
public record TransitionDetails(Long pid, Integer returnCode, String failureSummary,
    JsonNode extra) {
  /**
   * Checks and copies.
   *
   * @param pid the pid, or null
   * @param returnCode the return code, or null
   * @param failureSummary the summary, or null
   * @param extra a JSON object, or null
   * @throws IllegalArgumentException if {@code extra} is not an object or the pid is not
   *     positive
   */
  public TransitionDetails {
    Preconditions.checkArgument(pid == null || pid > 0, "pid must be positive: %s", pid);
    extra = extra == null || extra.isNull() ? JsonNodeFactory.instance.objectNode()
        : extra.deepCopy();
    Preconditions.checkArgument(extra.isObject(), "extra must be a JSON object: %s", extra);
  }

  /**
   * No details.
   *
   * @return empty details
   */
  public static TransitionDetails none() {
    return new TransitionDetails(null, null, null, null);
  }

  /**
   * Details with a process id.
   *
   * @param value the pid
   * @return the new details
   * @throws IllegalArgumentException if the pid is not positive
   */
  public TransitionDetails withPid(long value) {
    return new TransitionDetails(value, returnCode, failureSummary, extra);
  }

  /**
   * Details with an exit code.
   *
   * @param value the exit code
   * @return the new details
   */
  public TransitionDetails withReturnCode(int value) {
    return new TransitionDetails(pid, value, failureSummary, extra);
  }

  /**
   * Details with a failure summary.
   *
   * @param value the summary
   * @return the new details
   */
  public TransitionDetails withFailureSummary(String value) {
    return new TransitionDetails(pid, returnCode, value, extra);
  }

  /**
   * Details with extra event details.
   *
   * @param value a JSON object
   * @return the new details
   * @throws IllegalArgumentException if the value is not an object
   */
  public TransitionDetails withExtra(JsonNode value) {
    return new TransitionDetails(pid, returnCode, failureSummary, value);
  }

  /**
   * The extra details (a copy).
   *
   * @return a JSON object, empty when none
   */
  @Override
  public JsonNode extra() {
    return extra.deepCopy();
  }
}
