package dev.ledger.artifacts;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Frozen attempt snapshots, first write wins, with the blobs they reference.
 *
 * <p><b>Freezing.</b> Each attempt of a root has at most one snapshot, identified by
 * {@link ArtifactSnapshot#idFor}. The first freeze of an attempt stores its normalized
 * content; a later freeze with the same content returns the stored snapshot unchanged
 * (including its {@code frozenAt}); with different content it throws
 * {@link ArtifactConflictException}. Among racing freezes of one attempt (threads or
 * processes) exactly one content wins and every racer gets that snapshot or the conflict.
 *
 * <p><b>Identifiers</b> (root ids, attempt ids) follow {@link dev.ledger.core.internal.io.Identifiers};
 * a refused id throws {@link dev.ledger.core.InvalidIdentifierException} before anything is
 * touched. <b>Damage</b> (an unparsable snapshot, a blob whose bytes do not match its name)
 * throws {@link CorruptArtifactException} with the path, and nothing on disk changes.
 *
 * <p>Thread-safe. After {@link #close()}, every method throws
 * {@link dev.ledger.core.StoreClosedException}.
 */
public interface ArtifactStore extends AutoCloseable {
  /** The blobs of this store. */
  BlobStore blobs();

  /**
   * Freezes an attempt's submission. Files of the submission are stored as blobs first;
   * every referenced blob must exist.
   *
   * @return the attempt's snapshot: the new one, or the existing one if its content is equal
   * @throws ArtifactConflictException if the attempt is frozen with different content
   * @throws BlobNotFoundException if a reference names a blob that is not stored (nothing is
   *     frozen)
   * @throws CorruptArtifactException if the attempt's existing snapshot is damaged
   */
  ArtifactSnapshot freeze(String rootId, String attemptId, AttemptSubmission submission);

  /**
   * Reads one snapshot by id, without scanning.
   *
   * @throws ArtifactNotFoundException if there is none
   * @throws dev.ledger.core.InvalidIdentifierException if {@code snapshotId} is not of the
   *     form {@code attempt-<64 hex>}
   */
  ArtifactSnapshot get(String rootId, String snapshotId);

  /** The snapshot of an attempt, if frozen; found by name, without scanning. */
  Optional<ArtifactSnapshot> getForAttempt(String rootId, String attemptId);

  /**
   * A page of a root's snapshots in snapshot id order.
   *
   * @param after the {@link SnapshotPage#nextAfter()} of the previous page, or null for the
   *     first page
   * @param limit the largest page, at least 1
   */
  SnapshotPage list(String rootId, String after, int limit);

  /**
   * The snapshots of a root whose attempt is not in {@code knownAttemptIds}, in id order.
   * Changes nothing.
   */
  List<ArtifactSnapshot> listOrphans(String rootId, Set<String> knownAttemptIds);

  /**
   * Removes the orphan snapshots of a root (those whose attempt is not in
   * {@code knownAttemptIds}) frozen at least {@code minAge} ago by the store's clock. Only
   * files found by listing the root's directory are removed; the content of a snapshot never
   * chooses what is deleted. If any snapshot of the root is damaged, nothing is removed.
   *
   * @param dryRun report what would be removed without removing it
   * @throws CorruptArtifactException if a snapshot of the root is damaged
   */
  OrphanCleanup cleanupOrphans(String rootId, Set<String> knownAttemptIds, Duration minAge,
      boolean dryRun);

  /**
   * Removes blobs that no snapshot of any root references and that were last put at least
   * {@code grace} ago. A freeze publishing at the same moment is safe: either its blobs are
   * seen as referenced, or the freeze finds them missing and fails without freezing. A blob
   * put within the grace period always survives, so put-then-freeze is safe as long as the
   * freeze follows within the grace period.
   *
   * @param dryRun report what would be removed without removing it
   * @throws CorruptArtifactException if a snapshot is damaged (what it references is then
   *     unknown, so nothing is removed)
   */
  BlobCollection collectGarbage(Duration grace, boolean dryRun);

  /** Closes the store; idempotent. */
  @Override
  void close();
}
