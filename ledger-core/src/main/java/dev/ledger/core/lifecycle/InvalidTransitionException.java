package dev.ledger.core.lifecycle;

import dev.ledger.core.LedgerException;
import java.util.List;

/**
 * A transition that its {@link Lifecycle} does not allow, out of a terminal state included.
 * Nothing was written.
 */
public class InvalidTransitionException extends LedgerException {
  private static final long serialVersionUID = 1L;
  /** Serialized with the exception; what {@link #from()} returns. */
  private final String from;
  /** Serialized with the exception; what {@link #to()} returns. */
  private final String to;
  /** Serialized with the exception; what {@link #allowed()} returns. */
  private final List<String> allowed;

  /**
   * Creates the exception.
   *
   * @param subject what was being moved (a run id, an operation id), or null
   * @param from the current state's name
   * @param to the requested state's name
   * @param allowed the names of the states {@code from} may move to, in declaration order
   */
  public InvalidTransitionException(String subject, String from, String to,
      List<String> allowed) {
    super((subject == null ? "" : "'" + subject + "': ") + "transition " + from + " -> " + to
        + " is not allowed; from " + from + " the allowed states are "
        + (allowed.isEmpty() ? "none (terminal)" : allowed));
    this.from = from;
    this.to = to;
    this.allowed = List.copyOf(allowed);
  }

  /**
   * The state the transition started from.
   *
   * @return its name
   */
  public String from() {
    return from;
  }

  /**
   * The state the transition asked for.
   *
   * @return its name
   */
  public String to() {
    return to;
  }

  /**
   * The states {@link #from()} may move to; empty for a terminal state.
   *
   * @return their names, in declaration order; unmodifiable
   */
  public List<String> allowed() {
    return allowed;
  }
}
