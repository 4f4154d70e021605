package dev.ledger.registry;

import dev.ledger.core.LedgerException;

/**
 * Root of the refusals of a {@link RunRegistry}: a missing run or workspace, a conflict with
 * what is registered, a stale revision, bad paths or oversized data. When an operation is
 * refused with one of these, nothing was written.
 */
public class RegistryException extends LedgerException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message names what was refused, with the ids and values involved
   */
  public RegistryException(String message) {
    super(message);
  }
}
