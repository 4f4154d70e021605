package dev.ledger.artifacts;

import java.nio.file.Path;

/** A blob's bytes do not hash to its content id. */
public class CorruptBlobException extends CorruptArtifactException {
  private static final long serialVersionUID = 1L;
  /** The id the blob is stored under. */
  private final ContentId expected;
  /** The hex SHA-256 of the bytes read. */
  private final String actualSha256;

  /**
   * Creates the exception for a blob whose bytes do not hash to its id.
   *
   * @param path the blob's file
   * @param expected the id it is stored under
   * @param actualSha256 the hex SHA-256 of the bytes actually read
   */
  public CorruptBlobException(Path path, ContentId expected, String actualSha256) {
    super(path, "bytes hash to sha256 " + actualSha256 + ", not to its id " + expected);
    this.expected = expected;
    this.actualSha256 = actualSha256;
  }

  /**
   * The id the blob is stored under.
   *
   * @return the expected content id
   */
  public ContentId expected() {
    return expected;
  }

  /**
   * The digest of the bytes actually read.
   *
   * @return lower-case hex SHA-256
   */
  public String actualSha256() {
    return actualSha256;
  }
}
