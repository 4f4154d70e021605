package dev.ledger.registry;

/** No run has the registry id an operation named. Nothing was written. */
public class RunNotFoundException extends RegistryException {
  private static final long serialVersionUID = 1L;
  /** Serialized with the exception; what {@link #runId()} returns. */
  private final String runId;

  /**
   * Creates the exception.
   *
   * @param runId the registry run id that was not found
   */
  public RunNotFoundException(String runId) {
    super("No run with registry id '" + runId + "'");
    this.runId = runId;
  }

  /**
   * The registry id that was not found.
   *
   * @return the id
   */
  public String runId() {
    return runId;
  }
}
