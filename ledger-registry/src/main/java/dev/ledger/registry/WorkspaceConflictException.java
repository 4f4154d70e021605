package dev.ledger.registry;

/**
 * {@link RunRegistry#registerWorkspace} named a canonical path that another workspace id
 * already holds. Nothing was written.
 */
public class WorkspaceConflictException extends RegistryException {
  private static final long serialVersionUID = 1L;
  /** Serialized with the exception; what {@link #canonicalPath()} returns. */
  private final String canonicalPath;
  /** Serialized with the exception; what {@link #ownerId()} returns. */
  private final String ownerId;
  /** Serialized with the exception; what {@link #requestedId()} returns. */
  private final String requestedId;

  /**
   * Creates the exception.
   *
   * @param canonicalPath the contested canonical path
   * @param ownerId the workspace id that holds it
   * @param requestedId the workspace id that asked for it
   */
  public WorkspaceConflictException(String canonicalPath, String ownerId, String requestedId) {
    super("Workspace path " + canonicalPath + " is already registered as '" + ownerId
        + "', not '" + requestedId + "'");
    this.canonicalPath = canonicalPath;
    this.ownerId = ownerId;
    this.requestedId = requestedId;
  }

  /**
   * The contested path.
   *
   * @return the canonical path
   */
  public String canonicalPath() {
    return canonicalPath;
  }

  /**
   * The workspace that holds the path.
   *
   * @return its id
   */
  public String ownerId() {
    return ownerId;
  }

  /**
   * The workspace id that asked for the path.
   *
   * @return the id
   */
  public String requestedId() {
    return requestedId;
  }
}
