package dev.ledger.core;

/** The ledger was never committed to: there is no state for this root id. */
public class LedgerNotFoundException extends LedgerException {
  private static final long serialVersionUID = 1L;
  /** Serialized with the exception; what {@link #rootId()} returns. */
  private final String rootId;

  /**
   * Creates the exception.
   *
   * @param rootId the root id that has no ledger
   */
  public LedgerNotFoundException(String rootId) {
    super("No ledger for root '" + rootId + "': it has never been committed to");
    this.rootId = rootId;
  }

  /**
   * The root id that has no ledger.
   *
   * @return the root id
   */
  public String rootId() {
    return rootId;
  }
}
