package dev.ledger.artifacts;

import com.google.common.base.Preconditions;
import java.nio.file.Path;

/**
 * One damaged snapshot found by {@code FileArtifactStore.verify()}: a file in a root's
 * directory that does not parse, whose digest is not its content's, whose name is not the
 * snapshot id of its attempt or whose root is not its directory's, or that references a blob
 * the store does not hold.
 *
 * @param path the snapshot file (or the directory that is not a root directory)
 * @param rootId the root its directory names, or null if the directory name is not one
 * @param missingBlob the referenced blob that is absent, or null for the other kinds
 * @param detail what is wrong
 */
public record SnapshotDamage(Path path, String rootId, ContentId missingBlob, String detail) {
  /**
   * Validates the required fields.
   *
   * @param path the file
   * @param rootId the root, or null
   * @param missingBlob the absent blob, or null
   * @param detail what is wrong
   * @throws NullPointerException if {@code path} or {@code detail} is null
   */
  public SnapshotDamage {
    Preconditions.checkNotNull(path, "path");
    Preconditions.checkNotNull(detail, "detail");
  }
}
