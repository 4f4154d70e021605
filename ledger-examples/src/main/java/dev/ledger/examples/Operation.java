package dev.ledger.examples;

import com.google.common.base.Preconditions;

/**
 * A background operation: one attempt of one task, run by one worker at a time.
 *
 * @param id {@code <task>.a<attempt>}; also the attempt id of its artifact snapshot
 * @param task the task it runs
 * @param attempt the attempt number, from 1
 * @param status where it stands
 * @param owner the worker that claimed it, or null while pending
 * @param session the orchestrator session that dispatched or last recovered it
 * @param recoveredFrom the status it had when a restarted orchestrator recovered it, or null
 * @param snapshotId its artifact snapshot once finished, or null
 * @param error why it failed, or null
 */
public record Operation(String id, String task, int attempt, OperationStatus status, String owner,
    int session, OperationStatus recoveredFrom, String snapshotId, String error) {
  /** Validates the fields. */
  public Operation {
    Preconditions.checkNotNull(id, "id");
    Preconditions.checkNotNull(task, "task");
    Preconditions.checkArgument(attempt >= 1, "attempt must be positive: %s", attempt);
    Preconditions.checkNotNull(status, "status");
  }

  /** The id of attempt {@code attempt} of {@code task}. */
  public static String idOf(String task, int attempt) {
    return task + ".a" + attempt;
  }

  /** A new pending operation. */
  public static Operation pending(String task, int attempt, int session) {
    return new Operation(idOf(task, attempt), task, attempt, OperationStatus.PENDING, null,
        session, null, null, null);
  }

  /** This operation claimed by {@code worker}. */
  public Operation claimedBy(String worker) {
    return new Operation(id, task, attempt, guard(OperationStatus.RUNNING), worker, session,
        recoveredFrom, snapshotId, error);
  }

  /** This operation in another status. */
  public Operation withStatus(OperationStatus next) {
    return new Operation(id, task, attempt, guard(next), owner, session, recoveredFrom,
        snapshotId, error);
  }

  /** This operation finished with a snapshot, and an error if it failed. */
  public Operation finished(OperationStatus next, String snapshot, String why) {
    return new Operation(id, task, attempt, guard(next), owner, session, recoveredFrom, snapshot,
        why);
  }

  /** This operation recovered by session {@code by}: back to pending, or cancelled. */
  public Operation recovered(OperationStatus next, int by) {
    return new Operation(id, task, attempt, guard(next),
        next == OperationStatus.PENDING ? null : owner, by, status, snapshotId, error);
  }

  /** {@code next}, if the operation lifecycle allows moving there from this status. */
  private OperationStatus guard(OperationStatus next) {
    return OperationStatus.lifecycle().check(status, next, id);
  }
}
