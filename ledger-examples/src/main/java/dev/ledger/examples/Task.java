package dev.ledger.examples;

import com.google.common.base.Preconditions;
import java.util.List;

/**
 * One task of a plan.
 *
 * @param id the task id ({@code t01}, {@code t02}, ...)
 * @param dependsOn ids of the tasks that must succeed first
 * @param status where it stands
 * @param attempts attempts dispatched so far (the next attempt's number is this plus one)
 * @param failures attempts that failed; the task fails for good at the plan's max attempts
 * @param snapshotId the artifact snapshot of the attempt that succeeded, or null
 */
public record Task(String id, List<String> dependsOn, TaskStatus status, int attempts,
    int failures, String snapshotId) {
  /** Validates the fields and copies the dependency list. */
  public Task {
    Preconditions.checkNotNull(id, "id");
    dependsOn = List.copyOf(dependsOn);
    Preconditions.checkNotNull(status, "status");
  }

  /** This task in another status. */
  public Task withStatus(TaskStatus next) {
    return new Task(id, dependsOn, guard(next), attempts, failures, snapshotId);
  }

  /** This task with one more attempt dispatched. */
  public Task dispatched() {
    return new Task(id, dependsOn, guard(TaskStatus.QUEUED), attempts + 1, failures,
        snapshotId);
  }

  /** This task after a failed attempt: waiting for a retry, or failed if none is left. */
  public Task failedAttempt(int maxAttempts) {
    int failed = failures + 1;
    return new Task(id, dependsOn,
        guard(failed >= maxAttempts ? TaskStatus.FAILED : TaskStatus.WAITING), attempts, failed,
        snapshotId);
  }

  /** This task after a successful attempt whose output was frozen as {@code snapshot}. */
  public Task succeeded(String snapshot) {
    return new Task(id, dependsOn, guard(TaskStatus.SUCCEEDED), attempts, failures, snapshot);
  }

  /** {@code next}, if the task lifecycle allows moving there from this status. */
  private TaskStatus guard(TaskStatus next) {
    return TaskStatus.lifecycle().check(status, next, id);
  }
}
