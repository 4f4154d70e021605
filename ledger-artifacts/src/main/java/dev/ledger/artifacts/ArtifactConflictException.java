package dev.ledger.artifacts;

import dev.ledger.core.LedgerException;

/**
 * An attempt that already has a snapshot was frozen again with different content. The
 * existing snapshot stands (first write wins); nothing was written.
 */
public class ArtifactConflictException extends LedgerException {
  private static final long serialVersionUID = 1L;
  private final String rootId;
  private final String attemptId;
  private final String existingSha256;
  private final String attemptedSha256;

  /** Creates the exception naming the attempt and both content digests. */
  public ArtifactConflictException(String rootId, String attemptId, String existingSha256,
      String attemptedSha256) {
    super("Attempt '" + attemptId + "' of root '" + rootId + "' is already frozen with content "
        + "sha256 " + existingSha256 + "; refusing different content sha256 " + attemptedSha256);
    this.rootId = rootId;
    this.attemptId = attemptId;
    this.existingSha256 = existingSha256;
    this.attemptedSha256 = attemptedSha256;
  }

  /** The root of the attempt. */
  public String rootId() {
    return rootId;
  }

  /** The attempt frozen twice. */
  public String attemptId() {
    return attemptId;
  }

  /** The digest of the snapshot that stands. */
  public String existingSha256() {
    return existingSha256;
  }

  /** The digest of the refused content. */
  public String attemptedSha256() {
    return attemptedSha256;
  }
}
