package dev.ledger.core;

/** The store (and so every ledger it handed out) was closed. */
public class StoreClosedException extends LedgerException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception naming the closed store. */
  public StoreClosedException(String store) {
    super("Store " + store + " is closed");
  }
}
