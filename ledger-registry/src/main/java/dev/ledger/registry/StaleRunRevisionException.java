package dev.ledger.registry;

/**
 * {@link RunRegistry#transitionRun} named a revision that is not the run's current one:
 * another caller moved the run first. Nothing was written. Read the run again and decide.
 */
public class StaleRunRevisionException extends RegistryException {
  private static final long serialVersionUID = 1L;
  /** Serialized with the exception; what {@link #runId()} returns. */
  private final String runId;
  /** Serialized with the exception; what {@link #expected()} returns. */
  private final long expected;
  /** Serialized with the exception; what {@link #actual()} returns. */
  private final long actual;

  /**
   * Creates the exception.
   *
   * @param runId the run's registry id
   * @param expected the revision the caller named
   * @param actual the run's revision
   */
  public StaleRunRevisionException(String runId, long expected, long actual) {
    super("Run '" + runId + "' revision conflict: expected revision " + expected
        + ", actual revision " + actual);
    this.runId = runId;
    this.expected = expected;
    this.actual = actual;
  }

  /**
   * The run.
   *
   * @return its registry id
   */
  public String runId() {
    return runId;
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
   * The run's revision when the transition was refused.
   *
   * @return the actual revision
   */
  public long actual() {
    return actual;
  }
}
