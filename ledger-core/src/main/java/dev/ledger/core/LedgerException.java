package dev.ledger.core;

/**
 * Root of every exception the ledger library throws. Unchecked: callers catch the subtype
 * they can handle (a {@link RevisionConflictException} to retry, a
 * {@link LedgerNotFoundException} to create) and let the rest propagate.
 *
 * <p>Every subtype's message names the ledger, file, offset or value involved, with the
 * expected and actual values where there are two. When an operation is refused with one of
 * these exceptions, nothing on disk was changed by it, unless the subtype says otherwise
 * ({@link LedgerIOException} after a failed write).
 */
public class LedgerException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates an exception.
   *
   * @param message names what failed and where
   */
  public LedgerException(String message) {
    super(message);
  }

  /**
   * Creates an exception with the underlying cause.
   *
   * @param message names what failed and where
   * @param cause the underlying failure, or null
   */
  public LedgerException(String message, Throwable cause) {
    super(message, cause);
  }
}
