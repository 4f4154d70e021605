package dev.ledger.artifacts;

import com.google.common.base.Preconditions;
import java.util.List;

/**
 * What {@link ArtifactStore#cleanupOrphans} removed, or would remove in a dry run.
 *
 * @param removed ids of the orphan snapshots removed (or, in a dry run, to be removed), in id
 *     order
 * @param tooYoung ids of orphans kept because they are younger than the minimum age, in id
 *     order
 * @param mode the mode of the cleanup: {@link CleanupMode#DRY_RUN} means nothing was deleted
 */
public record OrphanCleanup(List<String> removed, List<String> tooYoung, CleanupMode mode) {
  /**
   * Validates and copies the lists.
   *
   * @param removed ids of the orphans removed (or to be removed), in id order
   * @param tooYoung ids of orphans kept for their youth, in id order
   * @param mode the mode of the cleanup
   * @throws NullPointerException if a list, one of its elements, or {@code mode} is null
   */
  public OrphanCleanup {
    removed = List.copyOf(Preconditions.checkNotNull(removed, "removed"));
    tooYoung = List.copyOf(Preconditions.checkNotNull(tooYoung, "tooYoung"));
    Preconditions.checkNotNull(mode, "mode");
  }
}
