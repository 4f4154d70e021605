package dev.ledger.artifacts;

import com.google.common.base.Preconditions;
import java.util.List;

/**
 * What {@link ArtifactStore#collectGarbage} removed, or would remove in a dry run.
 *
 * @param removed unreferenced blobs older than the grace period, removed (or to be removed)
 * @param bytesRemoved their total size
 * @param referenced number of distinct blobs some snapshot references
 * @param withinGrace number of unreferenced blobs kept because they are younger than the
 *     grace period
 * @param dryRun whether nothing was deleted
 */
public record BlobCollection(List<ContentId> removed, long bytesRemoved, int referenced,
    int withinGrace, boolean dryRun) {
  /** Copies the list. */
  public BlobCollection {
    removed = List.copyOf(Preconditions.checkNotNull(removed, "removed"));
  }
}
