package dev.ledger.core;

/** The store (and so every ledger it handed out) was closed. */
public class StoreClosedException extends LedgerException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception naming the closed store.
   *
   * @param store the store, as in {@code "file store at /data/x"}
   */
  public StoreClosedException(String store) {
    super(store.isEmpty() ? "The store is closed"
        : Character.toUpperCase(store.charAt(0)) + store.substring(1) + " is closed");
  }
}
