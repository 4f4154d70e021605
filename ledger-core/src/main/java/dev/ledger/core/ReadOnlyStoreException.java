package dev.ledger.core;

/** A write was attempted through a store opened read-only. Nothing was written. */
public class ReadOnlyStoreException extends LedgerException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception naming the store and the ledger written to.
   *
   * @param store the store, as in {@code "file store at /data/x"}
   * @param rootId the ledger the refused commit was for
   */
  public ReadOnlyStoreException(String store, String rootId) {
    super("Refused a commit to ledger '" + rootId + "': the " + store + " was opened read-only");
  }

  /**
   * Creates the exception with a message naming the store and the refused write, for stores
   * whose writes are not commits to a ledger (the artifact store's puts, freezes and
   * cleanups).
   *
   * @param message what was refused, and by which store
   */
  protected ReadOnlyStoreException(String message) {
    super(message);
  }
}
