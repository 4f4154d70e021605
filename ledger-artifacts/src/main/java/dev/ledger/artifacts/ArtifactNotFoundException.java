package dev.ledger.artifacts;

import dev.ledger.core.LedgerException;

/** A snapshot (or, as {@link BlobNotFoundException}, a blob) does not exist. */
public class ArtifactNotFoundException extends LedgerException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception for a snapshot that does not exist.
   *
   * @param rootId the root looked in
   * @param snapshotId the snapshot looked for
   */
  public ArtifactNotFoundException(String rootId, String snapshotId) {
    super("Artifact snapshot " + snapshotId + " of root '" + rootId + "' not found");
  }

  /**
   * Creates the exception with a message naming what is missing and where.
   *
   * @param message the message
   */
  protected ArtifactNotFoundException(String message) {
    super(message);
  }
}
