package dev.ledger.examples;

import dev.ledger.core.CommitResult;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the orchestrator itself commits: creating the plan, asking workers to drain, and, after
 * a restart, recovering the operations the previous session left unfinished. Plain code over
 * a {@link PlanLedger}, so tests drive it on an in-memory store.
 */
public final class Orchestration {
  private Orchestration() {}

  /**
   * Creates the plan's ledger. Idempotent: creating the same plan again returns the original
   * commit (command {@code create/<plan>}).
   *
   * @throws dev.ledger.core.CommandConflictException if a different plan was created under
   *     the same id
   */
  public static CommitResult create(Ledger<PlanState> ledger, PlanState plan) {
    return ledger.commit(Ledger.NO_REVISION, plan,
        EventDraft.of("plan.created", Map.of("tasks", plan.tasks().size(),
            "maxAttempts", plan.maxAttempts(), "seed", plan.seed()))
            .withCommandId("create/" + plan.planId()));
  }

  /**
   * Asks the workers to stop: no new claims or dispatches, and every running operation of a
   * live worker becomes {@code stop_requested}; its owner acknowledges by cancelling it. An
   * owner that dies before acknowledging leaves the operation {@code stop_requested}, and the
   * operations of workers known to be dead stay {@code running}: both are left for recovery.
   *
   * @param deadWorkers workers known to be dead (there is nobody to ask)
   * @return the operations asked to stop
   */
  public static List<String> requestDrain(PlanLedger ledger, Set<String> deadWorkers) {
    List<String> stopped = new ArrayList<>();
    ledger.apply(state -> {
      stopped.clear();
      if (state.draining()) {
        return Optional.empty();
      }
      Transition.Builder b = Transition.of("drain/session-" + state.session(), state);
      b.state(state.withSession(state.session(), true));
      b.event("orchestrator.draining", Map.of("session", state.session()));
      for (Operation op : state.operations().values()) {
        if (op.status() == OperationStatus.RUNNING && !deadWorkers.contains(op.owner())) {
          b.operation(op.withStatus(OperationStatus.STOP_REQUESTED), Map.of());
          stopped.add(op.id());
        }
      }
      return Optional.of(b.build());
    });
    return List.copyOf(stopped);
  }

  /**
   * Records that the orchestrator killed a worker process: one event {@code worker.killed}
   * (worker, pid, operation, reason), state unchanged. The operation stays as it was,
   * {@code running} or {@code stop_requested}, for the next session's recovery to find.
   * Idempotent per worker and session (command {@code killed/<worker>/session-<n>}).
   *
   * @param ledger the plan's ledger
   * @param kill what was killed, and why
   */
  public static void recordKill(PlanLedger ledger, WorkerKill kill) {
    ledger.apply(state -> Optional.of(
        Transition.of("killed/" + kill.worker() + "/session-" + state.session(), state)
            .event("worker.killed", Map.of("worker", kill.worker(), "pid", kill.pid(),
                "operation", kill.operation(), "reason", kill.reason()))
            .build()));
  }

  /**
   * Starts a new orchestrator session after a restart and brings every recoverable operation
   * of the previous ones to a state the new workers can finish: a {@code pending} one stays
   * pending; a {@code running} one, whose owner died with the old session, goes back to
   * pending to be run again as the same attempt (its output, and so its snapshot, will be the
   * same); a {@code stop_requested} one is cancelled on behalf of its dead owner and its task
   * waits for a fresh attempt. Must run before the new session's workers start.
   *
   * @return the operations recovered, as they were found
   */
  public static List<Operation> recover(PlanLedger ledger) {
    List<Operation> found = new ArrayList<>();
    ledger.apply(state -> {
      found.clear();
      int session = state.session() + 1;
      Transition.Builder b = Transition.of("recover/session-" + session, state);
      b.state(state.withSession(session, false));
      List<Operation> recoverable = state.recoverable();
      found.addAll(recoverable);
      b.event("orchestrator.recovered", Map.of("session", session,
          "recoverable", recoverable.stream().map(Operation::id).toList()));
      for (Operation op : recoverable) {
        Task task = state.task(op.task());
        Map<String, Object> from = Map.of("recoveredFrom", op.status().wireName());
        switch (op.status()) {
          case PENDING -> b.operation(op.recovered(OperationStatus.PENDING, session), from);
          case RUNNING -> {
            b.operation(op.recovered(OperationStatus.PENDING, session), from);
            b.task(task.withStatus(TaskStatus.QUEUED), op.id());
          }
          case STOP_REQUESTED -> {
            b.operation(op.recovered(OperationStatus.CANCELLED, session), from);
            b.task(task.withStatus(TaskStatus.WAITING), op.id());
          }
          default -> throw new IllegalStateException("not recoverable: " + op);
        }
      }
      return Optional.of(b.build());
    });
    return List.copyOf(found);
  }
}
