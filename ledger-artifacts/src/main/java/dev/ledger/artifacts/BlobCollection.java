package dev.ledger.artifacts;

import com.google.common.base.Preconditions;
import java.util.List;

/**
 * What {@link ArtifactStore#collectGarbage} removed, or would remove in a dry run.
 *
 * @param removed unreferenced blobs older than the grace period, removed (or, in a dry run,
 *     to be removed), in id order
 * @param bytesRemoved their total size
 * @param referenced number of distinct blobs some snapshot references
 * @param withinGrace number of unreferenced blobs kept because they are younger than the
 *     grace period
 * @param mode the mode of the collection: {@link CleanupMode#DRY_RUN} means nothing was
 *     deleted
 */
public record BlobCollection(List<ContentId> removed, long bytesRemoved, int referenced,
    int withinGrace, CleanupMode mode) {
  /**
   * Validates and copies the list.
   *
   * @param removed the blobs removed (or to be removed), in id order
   * @param bytesRemoved their total size
   * @param referenced number of distinct referenced blobs
   * @param withinGrace number of unreferenced blobs kept for their youth
   * @param mode the mode of the collection
   * @throws NullPointerException if {@code removed}, one of its elements, or {@code mode} is
   *     null
   * @throws IllegalArgumentException if a count is negative
   */
  public BlobCollection {
    removed = List.copyOf(Preconditions.checkNotNull(removed, "removed"));
    Preconditions.checkArgument(bytesRemoved >= 0 && referenced >= 0 && withinGrace >= 0,
        "counts must not be negative: bytesRemoved %s, referenced %s, withinGrace %s",
        bytesRemoved, referenced, withinGrace);
    Preconditions.checkNotNull(mode, "mode");
  }
}
