package dev.ledger.core;

/**
 * A cursor was malformed, forged, issued for another ledger, written by a newer version of
 * the library, or points beyond the last committed event. Nothing was read or written.
 */
public class InvalidCursorException extends LedgerException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message names the ledger and what is wrong with the cursor
   */
  public InvalidCursorException(String message) {
    super(message);
  }
}
