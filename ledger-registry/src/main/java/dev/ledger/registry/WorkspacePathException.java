package dev.ledger.registry;

/**
 * A workspace path or a path relative to a workspace is refused: it does not exist or is not
 * a directory (workspaces), it is or passes through a symbolic link, it lies outside the
 * registry's workspace roots, or a relative path is absolute or leaves its workspace.
 * Nothing was written.
 */
public class WorkspacePathException extends RegistryException {
  private static final long serialVersionUID = 1L;
  /** Serialized with the exception; what {@link #path()} returns. */
  private final String path;
  /** Serialized with the exception; what {@link #reason()} returns. */
  private final String reason;

  /**
   * Creates the exception.
   *
   * @param path the refused path, as given
   * @param reason why it was refused
   */
  public WorkspacePathException(String path, String reason) {
    super("Path " + path + " is refused: " + reason);
    this.path = path;
    this.reason = reason;
  }

  /**
   * The refused path.
   *
   * @return the path as given
   */
  public String path() {
    return path;
  }

  /**
   * Why the path was refused.
   *
   * @return the reason
   */
  public String reason() {
    return reason;
  }
}
