package dev.ledger.core;

/** A state or event payload is larger than the store's configured limit. Nothing written. */
public class LimitExceededException extends LedgerException {
  private static final long serialVersionUID = 1L;
  /** Serialized with the exception; what {@link #limit()} returns. */
  private final long limit;
  /** Serialized with the exception; what {@link #actual()} returns. */
  private final long actual;

  /**
   * Creates the exception: {@code what} of ledger {@code rootId} has {@code actual} bytes.
   *
   * @param rootId the ledger
   * @param what what is too large ({@code "state"}, {@code "payload of event 0 (done)"})
   * @param limit the configured limit in bytes
   * @param actual the refused size in bytes
   */
  public LimitExceededException(String rootId, String what, long limit, long actual) {
    super("Ledger '" + rootId + "' " + what + " is " + actual + " bytes; the limit is " + limit);
    this.limit = limit;
    this.actual = actual;
  }

  /**
   * The configured limit.
   *
   * @return the limit in bytes
   */
  public long limit() {
    return limit;
  }

  /**
   * The refused size.
   *
   * @return the size in bytes
   */
  public long actual() {
    return actual;
  }
}
