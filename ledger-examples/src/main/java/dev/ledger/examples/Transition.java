package dev.ledger.examples;

import com.google.common.base.Preconditions;
import dev.ledger.core.EventDraft;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A change of a {@link PlanState} together with the events that describe it, all carrying one
 * command id (and the operation id where there is one), so that a retried commit of the same
 * change is recognised by the ledger and written once.
 *
 * @param commandId the command id of the commit
 * @param next the state after the change
 * @param events the events, in order
 */
public record Transition(String commandId, PlanState next, List<EventDraft> events) {
  /** Validates and copies. */
  public Transition {
    Preconditions.checkNotNull(commandId, "commandId");
    Preconditions.checkNotNull(next, "next");
    events = List.copyOf(events);
  }

  /** Starts a transition of {@code state} with command id {@code commandId}. */
  public static Builder of(String commandId, PlanState state) {
    return new Builder(commandId, state);
  }

  /** Collects the state change and its events. */
  public static final class Builder {
    private final String commandId;
    private PlanState state;
    private final List<EventDraft> events = new ArrayList<>();

    private Builder(String commandId, PlanState state) {
      this.commandId = commandId;
      this.state = state;
    }

    /** The state as changed so far. */
    public PlanState state() {
      return state;
    }

    /** Replaces the state. */
    public Builder state(PlanState next) {
      state = next;
      return this;
    }

    /** Replaces an operation and records {@code operation.<status>}. */
    public Builder operation(Operation op, Map<String, Object> extra) {
      state = state.with(op);
      Map<String, Object> payload = new java.util.TreeMap<>(extra);
      payload.put("task", op.task());
      payload.put("attempt", op.attempt());
      if (op.owner() != null) {
        payload.put("worker", op.owner());
      }
      events.add(EventDraft.of("operation." + op.status().wireName(), payload)
          .withCommandId(commandId).withOperationId(op.id()));
      return this;
    }

    /** Replaces a task and records {@code task.<status>}. */
    public Builder task(Task task, String operationId) {
      state = state.with(task);
      EventDraft draft = EventDraft.of("task." + task.status().wireName(), Map.of(
          "task", task.id(), "attempts", task.attempts(), "failures", task.failures()))
          .withCommandId(commandId);
      events.add(operationId == null ? draft : draft.withOperationId(operationId));
      return this;
    }

    /** Records another event. */
    public Builder event(String type, Map<String, Object> payload) {
      events.add(EventDraft.of(type, payload).withCommandId(commandId));
      return this;
    }

    /** The finished transition. */
    public Transition build() {
      return new Transition(commandId, state, events);
    }
  }
}
