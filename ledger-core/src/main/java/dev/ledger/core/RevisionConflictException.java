package dev.ledger.core;

/**
 * A commit named a revision that is not the ledger's current one: another writer committed
 * first (or the ledger already exists when {@link Ledger#NO_REVISION} was given). Nothing was
 * written. Reload, reapply the change and retry, or use {@link Ledger#update}.
 */
public class RevisionConflictException extends LedgerException {
  private static final long serialVersionUID = 1L;
  /** Serialized with the exception; what {@link #rootId()} returns. */
  private final String rootId;
  /** Serialized with the exception; what {@link #expected()} returns. */
  private final long expected;
  /** Serialized with the exception; what {@link #actual()} returns. */
  private final long actual;

  /**
   * Creates the conflict.
   *
   * @param rootId the ledger
   * @param expected the revision the caller named
   * @param actual the ledger's current revision
   */
  public RevisionConflictException(String rootId, long expected, long actual) {
    super("Ledger '" + rootId + "' revision conflict: expected revision " + expected
        + ", actual revision " + actual);
    this.rootId = rootId;
    this.expected = expected;
    this.actual = actual;
  }

  /**
   * The ledger's root id.
   *
   * @return the root id
   */
  public String rootId() {
    return rootId;
  }

  /**
   * The revision the caller named.
   *
   * @return the expected revision
   */
  public long expected() {
    return expected;
  }

  /**
   * The ledger's current revision when the commit was refused.
   *
   * @return the actual revision
   */
  public long actual() {
    return actual;
  }
}
