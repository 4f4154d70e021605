package dev.ledger.registry;

/** {@link RunRegistry#allocateRun} named an external run id that is already registered. */
public class DuplicateRunException extends RegistryException {
  private static final long serialVersionUID = 1L;
  /** Serialized with the exception; what {@link #externalRunId()} returns. */
  private final String externalRunId;
  /** Serialized with the exception; what {@link #existingRunId()} returns. */
  private final String existingRunId;

  /**
   * Creates the exception.
   *
   * @param externalRunId the duplicate external run id
   * @param existingRunId the registry id of the run that holds it
   */
  public DuplicateRunException(String externalRunId, String existingRunId) {
    super("Run id '" + externalRunId + "' is already registered (registry id '"
        + existingRunId + "')");
    this.externalRunId = externalRunId;
    this.existingRunId = existingRunId;
  }

  /**
   * The external run id that was asked for twice.
   *
   * @return the id
   */
  public String externalRunId() {
    return externalRunId;
  }

  /**
   * The registry id of the run already registered under that external id.
   *
   * @return the registry id
   */
  public String existingRunId() {
    return existingRunId;
  }
}
