package dev.ledger.core.lifecycle;

import com.google.common.base.Preconditions;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * A guarded state machine: the states of a thing, the transitions allowed between them, the
 * terminal states, and the timestamp fields stamped on entering states. Keeps no state of its
 * own: callers hold the current state where they like (a ledger's state, a collection
 * document, a record) and ask {@link #transition} before writing. Immutable and thread-safe.
 *
 * <p><b>Declaring</b> checks the machine whole ({@link IllegalArgumentException} naming the
 * culprit otherwise): every state named by a transition, terminal set or stamp is declared;
 * at least one initial state; every state is reachable from an initial state; a terminal
 * state has no transition out; a state that is not terminal has at least one.
 *
 * <p><b>Transitions.</b> {@link #transition} to the current state is a no-op
 * ({@link Transition#isNoOp()}: write nothing, record no event, keep the revision); to a state
 * the table does not allow from the current one it throws {@link InvalidTransitionException}
 * naming from, to and the allowed set. An allowed transition carries the stamps to set: a
 * {@linkplain Builder#stampOnEntry stamp on entry} every time its state is entered, a
 * {@linkplain Builder#stampOnFirstEntry first-entry stamp} only when the thing does not carry
 * that field yet. The instant comes from the caller, who should read the store's clock
 * ({@code LedgerOptions.clock()}), so that tests with a fixed clock are deterministic.
 *
 * <p><b>Events.</b> Each transition that is not a no-op should be recorded as a
 * {@value StatusChanged#TYPE} event ({@link #statusChanged}), with the revision the thing has
 * once it is written and the caller's details. Replaying those events and checking each with
 * {@link #isAllowed} proves the journal never broke the lifecycle.
 *
 * <pre>{@code
 * Lifecycle<Phase> lifecycle = Lifecycle.forEnum(Phase.class)
 *     .initial(Phase.NEW)
 *     .allow(Phase.NEW, Phase.ACTIVE, Phase.CLOSED)
 *     .allow(Phase.ACTIVE, Phase.CLOSED)
 *     .terminal(Phase.CLOSED)
 *     .stampOnFirstEntry("activatedAt", Phase.ACTIVE)
 *     .stampOnTerminal("closedAt")
 *     .build();
 * }</pre>
 *
 * @param <S> the state type: an enum, or {@code String} for {@linkplain #named named states}
 */
public final class Lifecycle<S> {
  private final List<S> states;
  private final Map<S, String> names;
  private final Map<String, S> byName;
  private final Set<S> initial;
  private final Set<S> terminal;
  private final Map<S, Set<S>> allowed;
  private final List<Stamp<S>> stamps;

  /**
   * A stamp rule: set {@code field} to the transition's instant on entering one of
   * {@code states}; with {@code firstEntryOnly}, only when the thing has no value for it yet.
   *
   * @param field the timestamp field's name
   * @param states the states whose entry stamps it; unmodifiable
   * @param firstEntryOnly whether a value already present is kept
   * @param <S> the state type
   */
  public record Stamp<S>(String field, Set<S> states, boolean firstEntryOnly) {
    /**
     * Copies the states.
     *
     * @param field the field name, not empty
     * @param states the states, not empty
     * @param firstEntryOnly whether an existing value is kept
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the field or the state set is empty
     */
    public Stamp {
      Preconditions.checkNotNull(field, "field");
      Preconditions.checkArgument(!field.isEmpty(), "a stamp needs a field name");
      states = Collections.unmodifiableSet(new LinkedHashSet<>(states));
      Preconditions.checkArgument(!states.isEmpty(), "stamp '%s' names no state", field);
    }
  }

  private Lifecycle(Builder<S> builder) {
    this.states = List.copyOf(builder.states);
    this.names = Collections.unmodifiableMap(new LinkedHashMap<>(builder.names));
    Map<String, S> reverse = new HashMap<>();
    names.forEach((state, name) -> reverse.put(name, state));
    this.byName = Collections.unmodifiableMap(reverse);
    this.initial = Collections.unmodifiableSet(new LinkedHashSet<>(builder.initial));
    this.terminal = Collections.unmodifiableSet(new LinkedHashSet<>(builder.terminal));
    Map<S, Set<S>> table = new LinkedHashMap<>();
    for (S state : states) {
      table.put(state, Collections.unmodifiableSet(new LinkedHashSet<>(
          builder.allowed.getOrDefault(state, Set.of()))));
    }
    this.allowed = Collections.unmodifiableMap(table);
    this.stamps = List.copyOf(builder.stamps);
  }

  /**
   * Starts declaring a lifecycle over every constant of an enum, named by
   * {@code name().toLowerCase(Locale.ROOT)} ({@code CANCEL_REQUESTED} is
   * {@code cancel_requested}).
   *
   * @param type the enum
   * @param <E> the enum type
   * @return the builder
   * @throws NullPointerException if {@code type} is null
   */
  public static <E extends Enum<E>> Builder<E> forEnum(Class<E> type) {
    return forEnum(type, e -> e.name().toLowerCase(Locale.ROOT));
  }

  /**
   * Starts declaring a lifecycle over every constant of an enum, with the names events and
   * messages use.
   *
   * @param type the enum
   * @param names each constant's name; distinct and non-empty
   * @param <E> the enum type
   * @return the builder
   * @throws NullPointerException if an argument is null or a name is null
   * @throws IllegalArgumentException if two constants share a name or a name is empty
   */
  public static <E extends Enum<E>> Builder<E> forEnum(Class<E> type,
      Function<? super E, String> names) {
    Preconditions.checkNotNull(type, "type");
    Preconditions.checkNotNull(names, "names");
    Builder<E> builder = new Builder<>();
    for (E constant : EnumSet.allOf(type)) {
      builder.declare(constant, names.apply(constant));
    }
    return builder;
  }

  /**
   * Starts declaring a lifecycle over named states; a state is its own name.
   *
   * @param states the state names, distinct and non-empty, in declaration order
   * @return the builder
   * @throws NullPointerException if the list or a name is null
   * @throws IllegalArgumentException if a name is empty or repeated, or none is given
   */
  public static Builder<String> named(List<String> states) {
    Preconditions.checkNotNull(states, "states");
    Preconditions.checkArgument(!states.isEmpty(), "a lifecycle needs at least one state");
    Builder<String> builder = new Builder<>();
    for (String state : states) {
      builder.declare(state, state);
    }
    return builder;
  }

  /**
   * The declared states.
   *
   * @return the states, in declaration order; unmodifiable
   */
  public List<S> states() {
    return states;
  }

  /**
   * The states a thing may start in.
   *
   * @return the initial states; unmodifiable
   */
  public Set<S> initialStates() {
    return initial;
  }

  /**
   * The states with no way out.
   *
   * @return the terminal states; unmodifiable
   */
  public Set<S> terminalStates() {
    return terminal;
  }

  /**
   * The stamp rules, in declaration order.
   *
   * @return the rules; unmodifiable
   */
  public List<Stamp<S>> stamps() {
    return stamps;
  }

  /**
   * Whether a state is terminal.
   *
   * @param state a state
   * @return true if it has no way out
   * @throws UnknownStateException if the state is not declared
   * @throws NullPointerException if {@code state} is null
   */
  public boolean isTerminal(S state) {
    return terminal.contains(known(state));
  }

  /**
   * The states a thing in {@code from} may move to (the no-op to itself is not listed).
   *
   * @param from a state
   * @return the allowed targets, in declaration order; empty for a terminal state;
   *     unmodifiable
   * @throws UnknownStateException if the state is not declared
   * @throws NullPointerException if {@code from} is null
   */
  public Set<S> allowedFrom(S from) {
    return allowed.get(known(from));
  }

  /**
   * Whether the table allows {@code from -> to}; a no-op ({@code from} equal to {@code to})
   * is allowed.
   *
   * @param from the current state
   * @param to the requested state
   * @return true if {@link #transition} would not throw
   * @throws UnknownStateException if a state is not declared
   * @throws NullPointerException if an argument is null
   */
  public boolean isAllowed(S from, S to) {
    known(to);
    return from.equals(to) || allowedFrom(from).contains(to);
  }

  /**
   * A state's name, as events and messages show it.
   *
   * @param state a state
   * @return its name
   * @throws UnknownStateException if the state is not declared
   * @throws NullPointerException if {@code state} is null
   */
  public String name(S state) {
    return names.get(known(state));
  }

  /**
   * The state with a name, for names that come from outside (a command line, stored data).
   *
   * @param name a state name
   * @return the state
   * @throws UnknownStateException if no state has that name
   * @throws NullPointerException if {@code name} is null
   */
  public S state(String name) {
    Preconditions.checkNotNull(name, "name");
    S state = byName.get(name);
    if (state == null) {
      throw new UnknownStateException(name, List.copyOf(names.values()));
    }
    return state;
  }

  /**
   * Checks a transition without asking for stamps, for callers that keep no timestamps.
   *
   * @param from the current state
   * @param to the requested state
   * @param subject what moves (an id) for the error message, or null
   * @return {@code to}
   * @throws InvalidTransitionException if the table does not allow it (a no-op is allowed)
   * @throws UnknownStateException if a state is not declared
   * @throws NullPointerException if {@code from} or {@code to} is null
   */
  public S check(S from, S to, String subject) {
    transition(from, to, Set.of(), Instant.EPOCH, subject);
    return to;
  }

  /**
   * Checks a transition of a thing that carries no timestamp yet (see
   * {@link #transition(Object, Object, Set, Instant, String)}).
   *
   * @param from the current state
   * @param to the requested state
   * @param now the instant to stamp with, from the store's clock
   * @return the transition, a no-op if {@code from} equals {@code to}
   * @throws InvalidTransitionException if the table does not allow it
   * @throws UnknownStateException if a state is not declared
   * @throws NullPointerException if an argument is null
   */
  public Transition<S> transition(S from, S to, Instant now) {
    return transition(from, to, Set.of(), now, null);
  }

  /**
   * Checks a transition and says which timestamp fields to set.
   *
   * @param from the current state
   * @param to the requested state
   * @param stamped the timestamp fields the thing already carries a value for (first-entry
   *     stamps in it are not set again)
   * @param now the instant to stamp with, from the store's clock
   * @param subject what moves (an id) for the error message, or null
   * @return the transition; a no-op if {@code from} equals {@code to}
   * @throws InvalidTransitionException if the table does not allow it (out of a terminal
   *     state included)
   * @throws UnknownStateException if a state is not declared
   * @throws NullPointerException if an argument other than {@code subject} is null
   */
  public Transition<S> transition(S from, S to, Set<String> stamped, Instant now,
      String subject) {
    Preconditions.checkNotNull(stamped, "stamped");
    Preconditions.checkNotNull(now, "now");
    known(from);
    known(to);
    if (from.equals(to)) {
      return new Transition<>(from, to, Map.of());
    }
    if (!allowed.get(from).contains(to)) {
      List<String> targets = new ArrayList<>();
      allowed.get(from).forEach(s -> targets.add(names.get(s)));
      throw new InvalidTransitionException(subject, names.get(from), names.get(to), targets);
    }
    Map<String, Instant> set = new LinkedHashMap<>();
    for (Stamp<S> stamp : stamps) {
      if (stamp.states().contains(to)
          && !(stamp.firstEntryOnly() && stamped.contains(stamp.field()))) {
        set.put(stamp.field(), now);
      }
    }
    return new Transition<>(from, to, set);
  }

  /**
   * The {@value StatusChanged#TYPE} event of a transition that is not a no-op.
   *
   * @param transition an allowed transition
   * @param revision the revision the thing has once the transition is written
   * @param details the caller's details, a JSON object or null
   * @return the event payload; {@link StatusChanged#toEvent()} makes it a ledger event
   * @throws IllegalArgumentException if the transition is a no-op, the revision is below 1
   *     or the details are not an object
   * @throws UnknownStateException if a state is not declared
   * @throws NullPointerException if {@code transition} is null
   */
  public StatusChanged statusChanged(Transition<S> transition, long revision,
      com.fasterxml.jackson.databind.JsonNode details) {
    Preconditions.checkNotNull(transition, "transition");
    return new StatusChanged(name(transition.from()), name(transition.to()), revision, details);
  }

  private S known(S state) {
    Preconditions.checkNotNull(state, "state");
    if (!names.containsKey(state)) {
      throw new UnknownStateException(String.valueOf(state), List.copyOf(names.values()));
    }
    return state;
  }

  @Override
  public String toString() {
    StringBuilder out = new StringBuilder("Lifecycle[");
    allowed.forEach((from, to) -> {
      out.append(names.get(from)).append(" -> ");
      List<String> targets = new ArrayList<>();
      to.forEach(s -> targets.add(names.get(s)));
      out.append(terminal.contains(from) ? "(terminal)" : targets).append("; ");
    });
    return out.append("]").toString();
  }

  /**
   * Collects a declaration; {@link #build()} checks it whole. Not thread-safe.
   *
   * @param <S> the state type
   */
  public static final class Builder<S> {
    private final List<S> states = new ArrayList<>();
    private final Map<S, String> names = new LinkedHashMap<>();
    private final Set<S> initial = new LinkedHashSet<>();
    private final Set<S> terminal = new LinkedHashSet<>();
    private final Map<S, Set<S>> allowed = new LinkedHashMap<>();
    private final List<Stamp<S>> stamps = new ArrayList<>();
    private final List<String> terminalStamps = new ArrayList<>();

    private Builder() {}

    private void declare(S state, String name) {
      Preconditions.checkNotNull(state, "state");
      Preconditions.checkNotNull(name, "name of %s", state);
      Preconditions.checkArgument(!name.isEmpty(), "state %s has an empty name", state);
      Preconditions.checkArgument(!names.containsValue(name), "state name '%s' is declared twice",
          name);
      states.add(state);
      names.put(state, name);
    }

    private S declared(S state, String role) {
      Preconditions.checkNotNull(state, "%s state", role);
      Preconditions.checkArgument(names.containsKey(state),
          "%s names unknown state '%s'; declared: %s", role, state, names.values());
      return state;
    }

    /**
     * Declares the states a thing may start in.
     *
     * @param states declared states
     * @return this builder
     * @throws IllegalArgumentException if a state is not declared
     * @throws NullPointerException if a state is null
     */
    @SafeVarargs
    public final Builder<S> initial(S... states) {
      for (S state : states) {
        initial.add(declared(state, "initial"));
      }
      return this;
    }

    /**
     * Allows moving from one state to others.
     *
     * @param from a declared state
     * @param to declared states, not {@code from}
     * @return this builder
     * @throws IllegalArgumentException if a state is not declared or {@code to} contains
     *     {@code from} (staying is always a no-op)
     * @throws NullPointerException if a state is null
     */
    @SafeVarargs
    public final Builder<S> allow(S from, S... to) {
      declared(from, "transition");
      Set<S> targets = allowed.computeIfAbsent(from, k -> new LinkedHashSet<>());
      for (S target : to) {
        declared(target, "transition");
        Preconditions.checkArgument(!target.equals(from),
            "%s -> %s: staying in a state is always a no-op, not a transition",
            names.get(from), names.get(target));
        targets.add(target);
      }
      return this;
    }

    /**
     * Declares terminal states.
     *
     * @param states declared states
     * @return this builder
     * @throws IllegalArgumentException if a state is not declared
     * @throws NullPointerException if a state is null
     */
    @SafeVarargs
    public final Builder<S> terminal(S... states) {
      for (S state : states) {
        terminal.add(declared(state, "terminal"));
      }
      return this;
    }

    /**
     * Stamps {@code field} every time one of {@code states} is entered.
     *
     * @param field the timestamp field
     * @param states declared states
     * @return this builder
     * @throws IllegalArgumentException if a state is not declared or none is given
     * @throws NullPointerException if an argument is null
     */
    @SafeVarargs
    public final Builder<S> stampOnEntry(String field, S... states) {
      List<S> on = new ArrayList<>();
      for (S state : states) {
        on.add(state);
      }
      return stamp(field, on, false);
    }

    /**
     * Stamps {@code field} on entering one of {@code states} only when the thing carries no
     * value for it yet ({@code startedAt} on the first entry to running).
     *
     * @param field the timestamp field
     * @param states declared states
     * @return this builder
     * @throws IllegalArgumentException if a state is not declared or none is given
     * @throws NullPointerException if an argument is null
     */
    @SafeVarargs
    public final Builder<S> stampOnFirstEntry(String field, S... states) {
      List<S> on = new ArrayList<>();
      for (S state : states) {
        on.add(state);
      }
      return stamp(field, on, true);
    }

    /**
     * Stamps {@code field} on entering any terminal state (declared before or after this
     * call).
     *
     * @param field the timestamp field
     * @return this builder
     * @throws NullPointerException if {@code field} is null
     */
    public Builder<S> stampOnTerminal(String field) {
      Preconditions.checkNotNull(field, "field");
      terminalStamps.add(field);
      return this;
    }

    private Builder<S> stamp(String field, List<S> on, boolean firstOnly) {
      for (S state : on) {
        declared(state, "stamp '" + field + "'");
      }
      stamps.add(new Stamp<>(field, new LinkedHashSet<>(on), firstOnly));
      return this;
    }

    /**
     * Checks the declaration whole and builds the lifecycle.
     *
     * @return the lifecycle
     * @throws IllegalArgumentException if no initial state is declared, a state is not
     *     reachable from an initial state, a terminal state has a transition out, or a state
     *     that is not terminal has none
     */
    public Lifecycle<S> build() {
      Preconditions.checkArgument(!states.isEmpty(), "a lifecycle needs at least one state");
      Preconditions.checkArgument(!initial.isEmpty(), "a lifecycle needs an initial state");
      for (S state : terminal) {
        Set<S> out = allowed.getOrDefault(state, Set.of());
        Preconditions.checkArgument(out.isEmpty(),
            "terminal state '%s' has a way out: %s", names.get(state), out);
      }
      for (S state : states) {
        Preconditions.checkArgument(terminal.contains(state)
            || !allowed.getOrDefault(state, Set.of()).isEmpty(),
            "state '%s' is not terminal but has no transition out", names.get(state));
      }
      Set<S> reached = new LinkedHashSet<>(initial);
      Deque<S> todo = new ArrayDeque<>(initial);
      while (!todo.isEmpty()) {
        for (S next : allowed.getOrDefault(todo.pop(), Set.of())) {
          if (reached.add(next)) {
            todo.push(next);
          }
        }
      }
      List<String> unreachable = new ArrayList<>();
      for (S state : states) {
        if (!reached.contains(state)) {
          unreachable.add(names.get(state));
        }
      }
      Preconditions.checkArgument(unreachable.isEmpty(),
          "states not reachable from the initial states %s: %s", initial, unreachable);
      if (!terminalStamps.isEmpty()) {
        Preconditions.checkArgument(!terminal.isEmpty(),
            "stampOnTerminal(%s) but no terminal state is declared", terminalStamps);
        for (String field : terminalStamps) {
          stamps.add(new Stamp<>(field, new LinkedHashSet<>(terminal), false));
        }
        terminalStamps.clear();
      }
      return new Lifecycle<>(this);
    }
  }
}
