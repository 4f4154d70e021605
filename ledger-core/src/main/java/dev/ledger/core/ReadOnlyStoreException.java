package dev.ledger.core;

/** A write was attempted through a store opened read-only. Nothing was written. */
public class ReadOnlyStoreException extends LedgerException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception naming the store and the ledger written to. */
  public ReadOnlyStoreException(String store, String rootId) {
    super("Store " + store + " is open read-only; refused a commit to ledger '" + rootId + "'");
  }
}
