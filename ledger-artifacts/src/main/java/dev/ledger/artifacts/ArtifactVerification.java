package dev.ledger.artifacts;

import com.google.common.base.Preconditions;
import java.util.List;

/**
 * The result of verifying a whole artifact store: every blob re-hashed, and every snapshot
 * parsed and checked (digest against content, file name against attempt id, root against
 * directory, referenced blobs present). Verifying changes nothing.
 *
 * @param blobs the blob verification
 * @param snapshots snapshot files examined (sound and damaged)
 * @param damagedSnapshots each damaged snapshot, in path order
 */
public record ArtifactVerification(BlobVerification blobs, long snapshots,
    List<SnapshotDamage> damagedSnapshots) {
  /**
   * Validates and copies.
   *
   * @param blobs the blob verification
   * @param snapshots snapshot files examined
   * @param damagedSnapshots each damaged snapshot
   * @throws NullPointerException if {@code blobs}, {@code damagedSnapshots} or one of its
   *     elements is null
   * @throws IllegalArgumentException if {@code snapshots} is negative
   */
  public ArtifactVerification {
    Preconditions.checkNotNull(blobs, "blobs");
    Preconditions.checkArgument(snapshots >= 0, "snapshots %s", snapshots);
    damagedSnapshots = List.copyOf(Preconditions.checkNotNull(damagedSnapshots,
        "damagedSnapshots"));
  }

  /**
   * Whether no damage was found, in blobs or snapshots.
   *
   * @return true if both are sound
   */
  public boolean sound() {
    return blobs.sound() && damagedSnapshots.isEmpty();
  }
}
