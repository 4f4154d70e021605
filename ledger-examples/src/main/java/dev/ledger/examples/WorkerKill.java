package dev.ledger.examples;

import com.google.common.base.Preconditions;

/**
 * A worker process the orchestrator killed with SIGKILL, as recorded in the journal (event
 * {@code worker.killed}).
 *
 * @param worker the worker's name
 * @param pid its process id
 * @param operation the operation it was running
 * @param reason why it was killed
 */
public record WorkerKill(String worker, long pid, String operation, String reason) {
  /** Checks that every field is present. */
  public WorkerKill {
    Preconditions.checkNotNull(worker, "worker");
    Preconditions.checkArgument(pid > 0, "pid must be positive: %s", pid);
    Preconditions.checkNotNull(operation, "operation");
    Preconditions.checkNotNull(reason, "reason");
  }

  /**
   * The summary's wording.
   *
   * @return for example {@code p1 (pid 4711) with SIGKILL while it ran t03.a1: ...}
   */
  public String describe() {
    return worker + " (pid " + pid + ") with SIGKILL while it ran " + operation + ": " + reason;
  }
}
