package dev.ledger.artifacts;

import com.google.common.base.Preconditions;
import java.util.List;

/**
 * What {@link ArtifactStore#cleanupOrphans} removed, or would remove in a dry run.
 *
 * @param removed ids of the orphan snapshots removed (or to be removed), in id order
 * @param tooYoung ids of orphans kept because they are younger than the minimum age
 * @param dryRun whether nothing was deleted
 */
public record OrphanCleanup(List<String> removed, List<String> tooYoung, boolean dryRun) {
  /** Copies the lists. */
  public OrphanCleanup {
    removed = List.copyOf(Preconditions.checkNotNull(removed, "removed"));
    tooYoung = List.copyOf(Preconditions.checkNotNull(tooYoung, "tooYoung"));
  }
}
