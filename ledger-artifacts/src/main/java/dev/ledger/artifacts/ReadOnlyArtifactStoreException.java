package dev.ledger.artifacts;

import dev.ledger.core.ReadOnlyStoreException;

/**
 * A write (a blob put, a freeze, an orphan cleanup or a garbage collection, dry runs
 * included) was attempted through an artifact store opened read-only. Nothing was read from
 * the caller's input and nothing was written. A {@link ReadOnlyStoreException}, so one catch
 * covers read-only ledger and artifact stores.
 */
public class ReadOnlyArtifactStoreException extends ReadOnlyStoreException {
  private static final long serialVersionUID = 1L;
  /** The store that refused. */
  private final String store;
  /** What it refused. */
  private final String operation;

  /**
   * Creates the exception naming the store and the refused operation.
   *
   * @param store the store: its directory, or the in-memory store's name
   * @param operation what was refused ({@code "freeze of attempt 'a-1' of root 'run-1'"})
   */
  public ReadOnlyArtifactStoreException(String store, String operation) {
    super("Artifact store " + store + " is read-only; refused " + operation);
    this.store = store;
    this.operation = operation;
  }

  /**
   * The store that refused.
   *
   * @return its directory, or the in-memory store's name
   */
  public String store() {
    return store;
  }

  /**
   * The refused operation.
   *
   * @return a short description naming the root or attempt, if any
   */
  public String operation() {
    return operation;
  }
}
