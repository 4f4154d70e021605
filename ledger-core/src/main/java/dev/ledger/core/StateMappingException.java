package dev.ledger.core;

/**
 * A stored state does not map to the ledger's state type: the class changed in a way the
 * stored JSON does not fit (a field's type changed, a required value is missing), an upcaster
 * failed, or the state was written with a newer state version than the {@link StateType}
 * declares. Nothing was changed on disk; the stored state is intact, and a program with a
 * fitting class or upcaster reads it.
 */
public class StateMappingException extends LedgerException {
  private static final long serialVersionUID = 1L;
  /** Serialized with the exception; what {@link #rootId()} returns. */
  private final String rootId;
  /** Serialized with the exception; what {@link #revision()} returns. */
  private final long revision;
  /** Serialized with the exception; what {@link #path()} returns. */
  private final String path;

  /**
   * Creates the exception.
   *
   * @param rootId the ledger's root id
   * @param revision the revision whose state failed to map
   * @param stateType the type it was mapped to, as the message should name it
   * @param path JSON Pointer to the field that failed ({@code ""} for the whole state)
   * @param problem what went wrong there
   * @param cause the mapper's or the upcaster's exception, or null
   */
  public StateMappingException(String rootId, long revision, String stateType, String path,
      String problem, Throwable cause) {
    super("Ledger '" + rootId + "' state at revision " + revision + " does not map to "
        + stateType + (path.isEmpty() ? "" : " at " + path) + ": " + problem, cause);
    this.rootId = rootId;
    this.revision = revision;
    this.path = path;
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
   * The revision whose state failed to map.
   *
   * @return the revision
   */
  public long revision() {
    return revision;
  }

  /**
   * Where in the stored state the mapping failed.
   *
   * @return a JSON Pointer ({@code /tasks/t1/status}), or {@code ""} for the whole state
   */
  public String path() {
    return path;
  }
}
