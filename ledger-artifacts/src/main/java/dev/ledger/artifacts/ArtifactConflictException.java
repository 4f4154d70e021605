package dev.ledger.artifacts;

import dev.ledger.core.LedgerException;

/**
 * An attempt that already has a snapshot was frozen again with different content. The
 * existing snapshot stands (first write wins); nothing was written.
 */
public class ArtifactConflictException extends LedgerException {
  private static final long serialVersionUID = 1L;
  /** The root of the attempt. */
  private final String rootId;
  /** The attempt frozen twice. */
  private final String attemptId;
  /** The digest of the snapshot that stands. */
  private final String existingSha256;
  /** The digest of the refused content. */
  private final String attemptedSha256;

  /**
   * Creates the exception naming the attempt and both content digests.
   *
   * @param rootId the root of the attempt
   * @param attemptId the attempt frozen twice
   * @param existingSha256 the digest of the snapshot that stands
   * @param attemptedSha256 the digest of the refused content
   */
  public ArtifactConflictException(String rootId, String attemptId, String existingSha256,
      String attemptedSha256) {
    super("Attempt '" + attemptId + "' of root '" + rootId + "' is already frozen with content "
        + "sha256 " + existingSha256 + "; refusing different content sha256 " + attemptedSha256);
    this.rootId = rootId;
    this.attemptId = attemptId;
    this.existingSha256 = existingSha256;
    this.attemptedSha256 = attemptedSha256;
  }

  /**
   * The root of the attempt.
   *
   * @return the root id
   */
  public String rootId() {
    return rootId;
  }

  /**
   * The attempt frozen twice.
   *
   * @return the attempt id
   */
  public String attemptId() {
    return attemptId;
  }

  /**
   * The digest of the snapshot that stands.
   *
   * @return lower-case hex SHA-256 of its canonical content
   */
  public String existingSha256() {
    return existingSha256;
  }

  /**
   * The digest of the refused content.
   *
   * @return lower-case hex SHA-256 of its canonical content
   */
  public String attemptedSha256() {
    return attemptedSha256;
  }
}
