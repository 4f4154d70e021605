package dev.ledger.registry;

/** A run named a workspace id that is not registered. Nothing was written. */
public class UnknownWorkspaceException extends RegistryException {
  private static final long serialVersionUID = 1L;
  /** Serialized with the exception; what {@link #workspaceId()} returns. */
  private final String workspaceId;

  /**
   * Creates the exception.
   *
   * @param workspaceId the unregistered workspace id
   */
  public UnknownWorkspaceException(String workspaceId) {
    super("No workspace registered with id '" + workspaceId + "'");
    this.workspaceId = workspaceId;
  }

  /**
   * The workspace id that is not registered.
   *
   * @return the id
   */
  public String workspaceId() {
    return workspaceId;
  }
}
