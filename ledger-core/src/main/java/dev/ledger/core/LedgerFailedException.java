package dev.ledger.core;

/**
 * A ledger's writer saw an I/O failure while appending or forcing and no longer trusts what
 * the kernel holds for its files. Every later write through this store is refused; close and
 * reopen the store, which recovers from what is actually on disk.
 */
public class LedgerFailedException extends LedgerException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param rootId the ledger that refuses writes
   * @param firstFailure the failure that made it stop trusting its files
   */
  public LedgerFailedException(String rootId, Throwable firstFailure) {
    super("Ledger '" + rootId + "' refuses writes after an earlier I/O failure ("
        + firstFailure + "); reopen the store to recover", firstFailure);
  }
}
