package dev.ledger.artifacts;

import java.nio.file.Path;

/** A blob's bytes do not hash to its content id. */
public class CorruptBlobException extends CorruptArtifactException {
  private static final long serialVersionUID = 1L;
  private final ContentId expected;
  private final String actualSha256;

  /** Creates the exception: {@code path} should hash to {@code expected} but hashes to actual. */
  public CorruptBlobException(Path path, ContentId expected, String actualSha256) {
    super(path, "bytes hash to sha256 " + actualSha256 + ", not to its id " + expected);
    this.expected = expected;
    this.actualSha256 = actualSha256;
  }

  /** The id the blob is stored under. */
  public ContentId expected() {
    return expected;
  }

  /** The hex SHA-256 of the bytes actually read. */
  public String actualSha256() {
    return actualSha256;
  }
}
