package dev.ledger.core.lifecycle;

import dev.ledger.core.LedgerException;
import java.util.List;

/**
 * A state name (from a caller, a command line or stored data) that the {@link Lifecycle}
 * does not declare. Nothing was written.
 */
public class UnknownStateException extends LedgerException {
  private static final long serialVersionUID = 1L;
  /** Serialized with the exception; what {@link #state()} returns. */
  private final String state;
  /** Serialized with the exception; what {@link #known()} returns. */
  private final List<String> known;

  /**
   * Creates the exception.
   *
   * @param state the unknown name as given
   * @param known the declared state names, in declaration order
   */
  public UnknownStateException(String state, List<String> known) {
    super("Unknown state '" + state + "'; the declared states are " + known);
    this.state = state;
    this.known = List.copyOf(known);
  }

  /**
   * The name that is not declared.
   *
   * @return the name as given
   */
  public String state() {
    return state;
  }

  /**
   * The declared state names.
   *
   * @return the names, in declaration order; unmodifiable
   */
  public List<String> known() {
    return known;
  }
}
