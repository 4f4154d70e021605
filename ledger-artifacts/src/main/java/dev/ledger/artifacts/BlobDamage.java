package dev.ledger.artifacts;

import com.google.common.base.Preconditions;
import java.nio.file.Path;

/**
 * One damaged entry found by {@link BlobStore#verify()}.
 *
 * @param path the file (for an in-memory store, a descriptive pseudo path)
 * @param expected the id its name claims, or null if the name is not a content id
 * @param actualSha256 the hex SHA-256 of its bytes, or null if they could not be read
 * @param detail what is wrong
 */
public record BlobDamage(Path path, ContentId expected, String actualSha256, String detail) {
  /**
   * Validates the required fields.
   *
   * @param path the file
   * @param expected the id its name claims, or null
   * @param actualSha256 the hex SHA-256 of its bytes, or null
   * @param detail what is wrong
   * @throws NullPointerException if {@code path} or {@code detail} is null
   */
  public BlobDamage {
    Preconditions.checkNotNull(path, "path");
    Preconditions.checkNotNull(detail, "detail");
  }
}
