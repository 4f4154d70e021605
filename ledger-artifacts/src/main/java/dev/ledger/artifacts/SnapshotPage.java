package dev.ledger.artifacts;

import com.google.common.base.Preconditions;
import java.util.List;

/**
 * One page of a root's snapshots, in snapshot id order, read after a {@link SnapshotCursor}.
 *
 * @param snapshots the snapshots of this page; empty when none followed the cursor
 * @param nextCursor the cursor after the last snapshot of this page; the cursor that was read
 *     when the page is empty, so a caller can always pass it back
 * @param hasMore whether more snapshots followed this page when it was read (if they are
 *     removed meanwhile, the next page may still be empty)
 */
public record SnapshotPage(List<ArtifactSnapshot> snapshots, SnapshotCursor nextCursor,
    boolean hasMore) {
  /**
   * Validates and copies the list.
   *
   * @param snapshots the snapshots of this page
   * @param nextCursor the cursor after the last of them, or the cursor read if none
   * @param hasMore whether more snapshots followed this page
   * @throws NullPointerException if {@code snapshots}, one of them, or {@code nextCursor} is
   *     null
   * @throws IllegalArgumentException if {@code hasMore} is true for an empty page
   */
  public SnapshotPage {
    snapshots = List.copyOf(Preconditions.checkNotNull(snapshots, "snapshots"));
    Preconditions.checkNotNull(nextCursor, "nextCursor");
    Preconditions.checkArgument(!hasMore || !snapshots.isEmpty(),
        "an empty page cannot have more after it (cursor %s)", nextCursor);
  }

  /**
   * The page of {@code snapshots} read after {@code cursor} in the listing of {@code rootId}:
   * its next cursor is after the last of them, or {@code cursor} itself if there are none.
   * For stores implementing {@link ArtifactStore#list}.
   *
   * @param rootId the root listed
   * @param cursor the cursor the page was read after
   * @param snapshots the snapshots read, in id order
   * @param hasMore whether more snapshots followed them
   * @return the page
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code hasMore} is true and {@code snapshots} empty
   */
  public static SnapshotPage of(String rootId, SnapshotCursor cursor,
      List<ArtifactSnapshot> snapshots, boolean hasMore) {
    Preconditions.checkNotNull(cursor, "cursor");
    Preconditions.checkNotNull(snapshots, "snapshots");
    SnapshotCursor next = snapshots.isEmpty() ? cursor
        : SnapshotCursor.after(rootId, snapshots.get(snapshots.size() - 1).snapshotId());
    return new SnapshotPage(snapshots, next, hasMore);
  }
}
