package dev.ledger.artifacts;

import com.google.common.base.Preconditions;
import java.nio.file.Path;

/**
 * What an online backup of a file artifact store copied.
 *
 * @param target the base directory the backup's {@code artifacts} directory was published in
 * @param snapshots snapshots copied
 * @param blobs blobs copied
 * @param bytes bytes copied, snapshots and blobs together
 */
public record ArtifactBackupResult(Path target, int snapshots, int blobs, long bytes) {
  /**
   * Checks the components.
   *
   * @param target the backup's base directory
   * @param snapshots snapshots copied
   * @param blobs blobs copied
   * @param bytes bytes copied
   * @throws NullPointerException if {@code target} is null
   * @throws IllegalArgumentException if a count is negative
   */
  public ArtifactBackupResult {
    Preconditions.checkNotNull(target, "target");
    Preconditions.checkArgument(snapshots >= 0 && blobs >= 0 && bytes >= 0,
        "negative count: snapshots %s blobs %s bytes %s", snapshots, blobs, bytes);
  }
}
