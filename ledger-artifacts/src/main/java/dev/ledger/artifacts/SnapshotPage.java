package dev.ledger.artifacts;

import com.google.common.base.Preconditions;
import java.util.List;
import java.util.Optional;

/**
 * One page of a root's snapshots, in snapshot id order.
 *
 * @param snapshots the snapshots of this page
 * @param nextAfter the snapshot id to pass as {@code after} for the next page, or empty when
 *     this is the last page
 */
public record SnapshotPage(List<ArtifactSnapshot> snapshots, Optional<String> nextAfter) {
  /** Copies the list. */
  public SnapshotPage {
    snapshots = List.copyOf(Preconditions.checkNotNull(snapshots, "snapshots"));
    Preconditions.checkNotNull(nextAfter, "nextAfter");
  }

  /** Whether another page follows. */
  public boolean hasMore() {
    return nextAfter.isPresent();
  }
}
