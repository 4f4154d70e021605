package dev.ledger.core;

/**
 * An import was refused because the store already holds a ledger, or a ledger's directory,
 * for the root id the export names. Nothing was written.
 */
public class LedgerExistsException extends LedgerException {
  private static final long serialVersionUID = 1L;
  /** Serialized with the exception; what {@link #rootId()} returns. */
  private final String rootId;

  /**
   * Creates the exception.
   *
   * @param rootId the root id that already has a ledger
   * @param detail what was found in its place
   */
  public LedgerExistsException(String rootId, String detail) {
    super("Ledger '" + rootId + "' already exists: " + detail);
    this.rootId = rootId;
  }

  /**
   * The root id that already has a ledger.
   *
   * @return the root id
   */
  public String rootId() {
    return rootId;
  }
}
