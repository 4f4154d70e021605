package dev.ledger.core;

import com.google.common.base.Preconditions;
import java.util.List;

/**
 * What a {@link Ledger#update} change function decided, having seen the current state: a new
 * state with the events that record it ({@link #to}), or no change at all ({@link #none}).
 *
 * <pre>{@code
 * ledger.update(plan -> plan.done().contains("compile")
 *     ? Change.none()
 *     : Change.to(plan.with("compile"), EventDraft.of("task.done", Map.of("task", "compile"))));
 * }</pre>
 *
 * @param state the new state; null exactly when this is {@link #none()}
 * @param events the events to record with the new state, in order (empty for none)
 * @param <S> the ledger's state type
 */
public record Change<S>(S state, List<EventDraft> events) {
  /**
   * Copies the event list.
   *
   * @param state the new state, or null for no change
   * @param events the events, empty for no change
   * @throws NullPointerException if {@code events} or one of its drafts is null
   * @throws IllegalArgumentException if there is no state but there are events
   */
  public Change {
    events = List.copyOf(Preconditions.checkNotNull(events, "events"));
    Preconditions.checkArgument(state != null || events.isEmpty(),
        "a change without a new state cannot record events: %s", events);
  }

  /**
   * Commit {@code state}, recording {@code events} with it.
   *
   * @param state the new state
   * @param events the events, in order (may depend on the state the function saw)
   * @param <S> the ledger's state type
   * @return the change
   * @throws NullPointerException if the state, the list or a draft is null
   */
  public static <S> Change<S> to(S state, List<EventDraft> events) {
    return new Change<>(Preconditions.checkNotNull(state, "state"), events);
  }

  /**
   * Varargs form of {@link #to(Object, List)}.
   *
   * @param state the new state
   * @param events the events, in order
   * @param <S> the ledger's state type
   * @return the change
   * @throws NullPointerException if the state or a draft is null
   */
  public static <S> Change<S> to(S state, EventDraft... events) {
    return to(state, List.of(events));
  }

  /**
   * Nothing to do: the update writes nothing and returns the current version.
   *
   * @param <S> the ledger's state type
   * @return the no-change decision
   */
  public static <S> Change<S> none() {
    return new Change<>(null, List.of());
  }

  /**
   * Whether this is {@link #none()}.
   *
   * @return true if the update should write nothing
   */
  public boolean isNone() {
    return state == null;
  }
}
