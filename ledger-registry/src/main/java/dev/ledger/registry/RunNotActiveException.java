package dev.ledger.registry;

/**
 * An operation that needs an active run ({@link RunRegistry#setRunPid}) found the run in a
 * terminal status. Nothing was written.
 */
public class RunNotActiveException extends RegistryException {
  private static final long serialVersionUID = 1L;
  /** Serialized with the exception; what {@link #runId()} returns. */
  private final String runId;
  /** Serialized with the exception; what {@link #status()} returns. */
  private final RunStatus status;

  /**
   * Creates the exception.
   *
   * @param runId the run's registry id
   * @param status its terminal status
   */
  public RunNotActiveException(String runId, RunStatus status) {
    super("Run '" + runId + "' is " + status.wireName() + " (terminal), not active");
    this.runId = runId;
    this.status = status;
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
   * The run's terminal status.
   *
   * @return the status
   */
  public RunStatus status() {
    return status;
  }
}
