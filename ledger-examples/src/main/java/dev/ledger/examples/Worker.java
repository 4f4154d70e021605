package dev.ledger.examples;

import dev.ledger.artifacts.ArtifactRef;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.ArtifactStore;
import dev.ledger.artifacts.AttemptSubmission;
import dev.ledger.artifacts.ContentId;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A worker: dispatches ready tasks, claims pending operations, runs them, freezes each
 * finished attempt's output as an artifact snapshot, and records the outcome. Every state
 * change is one commit with the revision it was derived from (see {@link PlanLedger}); the
 * same class runs in threads, in child processes and, one step at a time, in tests.
 *
 * <p>Not thread-safe: one instance per thread.
 */
public final class Worker {
  /** What one {@link #step} did. */
  public enum Step {
    /** Claimed an operation and brought it to an end (or lost it to a stop request). */
    WORKED,
    /** Dispatched ready tasks as pending operations. */
    DISPATCHED,
    /** Nothing to do right now: other workers hold the tasks that block the rest. */
    IDLE,
    /** The plan is complete, or the orchestrator is draining: stop. */
    DONE
  }

  private final String id;
  private final PlanLedger ledger;
  private final ArtifactStore artifacts;
  private final TaskWork work;

  /**
   * Creates a worker.
   *
   * @param id the worker's name, recorded as the owner of what it claims
   * @param ledger its view of the plan's ledger
   * @param artifacts where attempt outputs are frozen
   * @param work what running an attempt does
   */
  public Worker(String id, PlanLedger ledger, ArtifactStore artifacts, TaskWork work) {
    this.id = id;
    this.ledger = ledger;
    this.artifacts = artifacts;
    this.work = work;
  }

  /** The worker's name. */
  public String id() {
    return id;
  }

  /** Conflicts this worker met. */
  public long conflicts() {
    return ledger.conflicts();
  }

  /** Runs steps until {@link Step#DONE}, pausing briefly when idle. */
  public void runUntilDone() throws InterruptedException {
    Step step;
    while ((step = step()) != Step.DONE) {
      if (step == Step.IDLE) {
        Thread.sleep(1);
      }
    }
  }

  /** Does one thing: claim and run one operation, else dispatch ready tasks, else nothing. */
  public Step step() {
    PlanState state = ledger.load().state();
    if (state.complete() || state.draining()) {
      return Step.DONE;
    }
    Optional<Operation> claimed = claim();
    if (claimed.isPresent()) {
      run(claimed.get());
      return Step.WORKED;
    }
    return dispatch() ? Step.DISPATCHED : Step.IDLE;
  }

  /** Claims the first pending operation, if any and not draining. */
  public Optional<Operation> claim() {
    Operation[] mine = new Operation[1];
    return ledger.apply(state -> {
      mine[0] = null;
      if (state.draining()) {
        return Optional.empty();
      }
      return state.operations().values().stream()
          .filter(o -> o.status() == OperationStatus.PENDING)
          .findFirst()
          .map(o -> {
            mine[0] = o.claimedBy(id);
            return Transition.of("claim/" + o.id() + "/" + id, state)
                .operation(mine[0], Map.of())
                .task(state.task(o.task()).withStatus(TaskStatus.RUNNING), o.id())
                .build();
          });
    }).map(t -> mine[0]);
  }

  /** Dispatches every ready task as a pending operation; false if none was ready. */
  public boolean dispatch() {
    return ledger.apply(state -> {
      List<Task> ready = state.ready();
      if (state.draining() || ready.isEmpty()) {
        return Optional.empty();
      }
      Transition.Builder b = Transition.of(
          "dispatch/" + Operation.idOf(ready.get(0).id(), ready.get(0).attempts() + 1) + "/" + id,
          state);
      for (Task task : ready) {
        Task next = task.dispatched();
        Operation op = Operation.pending(task.id(), next.attempts(), state.session());
        b.task(next, op.id()).operation(op, Map.of());
      }
      return Optional.of(b.build());
    }).isPresent();
  }

  /**
   * Runs a claimed operation: performs the work, freezes the output (unless a stop was
   * requested meanwhile) and records the outcome, or the cancellation.
   */
  public void run(Operation op) {
    PlanState before = ledger.load().state();
    TaskWork.Outcome outcome = work.perform(before, op);
    Operation now = ledger.load().state().operations().get(op.id());
    String snapshotId = null;
    if (now.status() == OperationStatus.RUNNING && id.equals(now.owner())) {
      snapshotId = freeze(before, op, outcome).snapshotId();
    }
    finish(op.id(), outcome, snapshotId);
  }

  private ArtifactSnapshot freeze(PlanState plan, Operation op, TaskWork.Outcome outcome) {
    ContentId blob = artifacts.blobs().put(outcome.output());
    String name = outcome.succeeded() ? "output.txt" : "error.log";
    String summary = op.task() + " attempt " + op.attempt()
        + (outcome.succeeded() ? " succeeded" : " failed: " + outcome.error());
    return artifacts.freeze(plan.planId(), op.id(), AttemptSubmission.of(summary,
        List.of(ArtifactRef.ofBlob(name, "text/plain", blob)), List.of()));
  }

  private void finish(String opId, TaskWork.Outcome outcome, String snapshotId) {
    ledger.apply(state -> {
      Operation op = state.operations().get(opId);
      if (!id.equals(op.owner())) {
        return Optional.empty(); // recovered and handed to another worker meanwhile
      }
      Task task = state.task(op.task());
      if (op.status() == OperationStatus.STOP_REQUESTED) {
        // A snapshot frozen before the stop request arrived stays on record with the attempt.
        return Optional.of(Transition.of("cancel/" + opId + "/" + id, state)
            .operation(op.finished(OperationStatus.CANCELLED, snapshotId, null),
                snapshotId == null ? Map.of("reason", "stop requested")
                    : Map.of("reason", "stop requested", "snapshot", snapshotId))
            .task(task.withStatus(TaskStatus.WAITING), opId)
            .build());
      }
      if (op.status() != OperationStatus.RUNNING || snapshotId == null) {
        return Optional.empty();
      }
      Transition.Builder b = Transition.of("finish/" + opId + "/" + id, state);
      if (outcome.succeeded()) {
        b.operation(op.finished(OperationStatus.SUCCEEDED, snapshotId, null),
            Map.of("snapshot", snapshotId));
        b.task(task.succeeded(snapshotId), opId);
        return Optional.of(b.build());
      }
      b.operation(op.finished(OperationStatus.FAILED, snapshotId, outcome.error()),
          Map.of("snapshot", snapshotId, "error", outcome.error()));
      Task failed = task.failedAttempt(state.maxAttempts());
      b.task(failed, opId);
      if (failed.status() == TaskStatus.FAILED) {
        skipDependents(b, failed.id());
      }
      return Optional.of(b.build());
    });
  }

  private static void skipDependents(Transition.Builder b, String failed) {
    Deque<String> gone = new ArrayDeque<>(List.of(failed));
    while (!gone.isEmpty()) {
      String dep = gone.pop();
      for (Task t : b.state().tasks().values()) {
        if (t.status() == TaskStatus.WAITING && t.dependsOn().contains(dep)) {
          b.task(t.withStatus(TaskStatus.SKIPPED), null);
          gone.push(t.id());
        }
      }
    }
  }
}
