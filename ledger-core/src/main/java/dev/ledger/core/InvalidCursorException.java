package dev.ledger.core;

/**
 * A cursor was malformed, forged, issued for another ledger, written by a newer version of
 * the library, or points beyond the last committed event. Nothing was read or written.
 */
public class InvalidCursorException extends LedgerException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception with a message naming the ledger and what is wrong. */
  public InvalidCursorException(String message) {
    super(message);
  }
}
