package dev.ledger.artifacts;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Frozen attempt snapshots, first write wins, with the blobs they reference. Implementations:
 * {@code FileArtifactStore} (durable, in a directory; {@code open}, {@code openReadOnly}) and
 * {@code InMemoryArtifactStore} (same contract, no disk; {@code create}).
 *
 * <p><b>Freezing.</b> Each attempt of a root has at most one snapshot, identified by
 * {@link ArtifactSnapshot#idFor}. The first freeze of an attempt stores its normalized
 * content; a later freeze with the same content returns the stored snapshot unchanged
 * (including its {@code frozenAt}); with different content it throws
 * {@link ArtifactConflictException}. Among racing freezes of one attempt (threads or
 * processes) exactly one content wins and every racer gets that snapshot or the conflict.
 *
 * <p><b>Identifiers</b> (root ids, attempt ids) follow the same rules as ledger root ids (see
 * {@link dev.ledger.core.LedgerStore#ledger}); a refused id throws
 * {@link dev.ledger.core.InvalidIdentifierException} before anything is touched.
 * <b>Damage</b> (an unparsable snapshot, a blob whose bytes do not match its name) throws
 * {@link CorruptArtifactException} with the path, and nothing on disk changes.
 *
 * <p><b>Read-only stores</b> (a file store opened with {@code openReadOnly}, an in-memory
 * store's {@code readOnlyView}) read, list and verify like any other, and refuse every write
 * with {@link ReadOnlyArtifactStoreException}: blob puts, freezes, orphan cleanups and
 * garbage collections, dry runs included (a dry run decides under the store lock, which a
 * read-only store never takes; {@link #listOrphans} is the lock-free way to look).
 *
 * <p>Thread-safe. After {@link #close()}, every method but {@code close} and
 * {@link #options()} throws {@link dev.ledger.core.StoreClosedException}, and so does every
 * method of the {@link #blobs()} it handed out.
 */
public interface ArtifactStore extends AutoCloseable {
  /** The largest page {@link #list} returns. */
  int MAX_PAGE_SIZE = 1000;

  /**
   * The options this store runs with.
   *
   * @return the options given when it was opened or created (defaults for a read-only file
   *     store, which uses none of them)
   */
  ArtifactOptions options();

  /**
   * The blobs of this store.
   *
   * @return the blob store, which lives and closes with this store
   * @throws dev.ledger.core.StoreClosedException if the store is closed
   */
  BlobStore blobs();

  /**
   * Freezes an attempt's submission. Files of the submission are stored as blobs first;
   * every referenced blob must exist.
   *
   * @param rootId the orchestration root the attempt belongs to
   * @param attemptId the attempt
   * @param submission what the attempt hands in
   * @return the attempt's snapshot: the new one, or the existing one if its content is equal
   * @throws ArtifactConflictException if the attempt is frozen with different content
   * @throws BlobNotFoundException if a reference names a blob that is not stored (nothing is
   *     frozen)
   * @throws CorruptArtifactException if the attempt's existing snapshot is damaged
   * @throws ReadOnlyArtifactStoreException if the store is read-only (nothing is read from
   *     the submission's files)
   * @throws dev.ledger.core.InvalidIdentifierException if {@code rootId} or
   *     {@code attemptId} is not a valid identifier
   * @throws dev.ledger.core.LockTimeoutException if the store lock is not had in time
   * @throws dev.ledger.core.LedgerIOException if a file cannot be read or written
   * @throws NullPointerException if {@code submission} is null
   */
  ArtifactSnapshot freeze(String rootId, String attemptId, AttemptSubmission submission);

  /**
   * Reads one snapshot by id, without scanning.
   *
   * @param rootId the root of the snapshot
   * @param snapshotId the snapshot, {@code attempt-<64 hex>}
   * @return the snapshot
   * @throws ArtifactNotFoundException if there is none
   * @throws CorruptArtifactException if its file is damaged
   * @throws dev.ledger.core.InvalidIdentifierException if {@code rootId} is not a valid
   *     identifier or {@code snapshotId} not of the form {@code attempt-<64 hex>}
   */
  ArtifactSnapshot get(String rootId, String snapshotId);

  /**
   * The snapshot of an attempt, if frozen; found by name, without scanning.
   *
   * @param rootId the root of the attempt
   * @param attemptId the attempt
   * @return its snapshot, or empty if it has none
   * @throws CorruptArtifactException if its file is damaged
   * @throws dev.ledger.core.InvalidIdentifierException if {@code rootId} or
   *     {@code attemptId} is not a valid identifier
   */
  Optional<ArtifactSnapshot> getForAttempt(String rootId, String attemptId);

  /**
   * Up to {@code limit} snapshots of a root after {@code cursor}, in snapshot id order (the
   * order of {@code sha256(attemptId)}, not of freezing). A listing sees every snapshot that
   * exists from its first page to its last; one frozen or removed meanwhile may or may not
   * appear. Listing a root that has no snapshot gives an empty page.
   *
   * @param rootId the root to list
   * @param cursor {@link SnapshotCursor#START}, or the {@link SnapshotPage#nextCursor()} of
   *     a previous page of this root
   * @param limit 1 to {@link #MAX_PAGE_SIZE}
   * @return the page; its next cursor is {@code cursor} itself when it is empty
   * @throws dev.ledger.core.InvalidCursorException if the cursor is malformed, forged, of
   *     another root or of a newer version (nothing is read)
   * @throws CorruptArtifactException if a snapshot of the page is damaged
   * @throws dev.ledger.core.InvalidIdentifierException if {@code rootId} is not a valid
   *     identifier
   * @throws IllegalArgumentException if {@code limit} is out of range
   * @throws NullPointerException if {@code cursor} is null
   */
  SnapshotPage list(String rootId, SnapshotCursor cursor, int limit);

  /**
   * The roots that have at least one snapshot, in sorted order (of the ids, as
   * {@link String#compareTo} orders them). A root whose snapshots were all removed by
   * {@link #cleanupOrphans} is not listed. Reads no snapshot, so a damaged snapshot still
   * counts (reading it then throws).
   *
   * @return the root ids, sorted; empty for an empty store
   * @throws dev.ledger.core.LedgerIOException if the store's directory cannot be listed
   */
  List<String> rootIds();

  /**
   * The snapshots of a root whose attempt is not in {@code knownAttemptIds}, in id order.
   * Changes nothing and takes no lock.
   *
   * @param rootId the root to look in
   * @param knownAttemptIds the attempts the caller still knows
   * @return the orphans, in snapshot id order
   * @throws CorruptArtifactException if a snapshot of the root is damaged
   * @throws dev.ledger.core.InvalidIdentifierException if {@code rootId} is not a valid
   *     identifier
   * @throws NullPointerException if {@code knownAttemptIds} is null
   */
  List<ArtifactSnapshot> listOrphans(String rootId, Set<String> knownAttemptIds);

  /**
   * Removes (or, in a dry run, reports) the orphan snapshots of a root (those whose attempt
   * is not in {@code knownAttemptIds}) frozen at least {@code minAge} ago by the store's
   * clock. Runs under the store lock. Only files found by listing the root's directory are
   * removed; the content of a snapshot never chooses what is deleted. If any snapshot of the
   * root is damaged, nothing is removed.
   *
   * @param rootId the root to clean
   * @param knownAttemptIds the attempts the caller still knows; their snapshots stay
   * @param minAge orphans frozen less than this long ago stay (reported as too young)
   * @param mode {@link CleanupMode#DELETE} to remove, {@link CleanupMode#DRY_RUN} to report
   * @return what was (or would be) removed and what was too young
   * @throws CorruptArtifactException if a snapshot of the root is damaged
   * @throws ReadOnlyArtifactStoreException if the store is read-only, in either mode
   * @throws dev.ledger.core.InvalidIdentifierException if {@code rootId} is not a valid
   *     identifier
   * @throws dev.ledger.core.LockTimeoutException if the store lock is not had in time
   * @throws dev.ledger.core.LedgerIOException if a file cannot be listed or removed
   * @throws IllegalArgumentException if {@code minAge} is null or negative
   * @throws NullPointerException if {@code knownAttemptIds} or {@code mode} is null
   */
  OrphanCleanup cleanupOrphans(String rootId, Set<String> knownAttemptIds, Duration minAge,
      CleanupMode mode);

  /**
   * Removes (or, in a dry run, reports) blobs that no snapshot of any root references and
   * that were last put at least {@code grace} ago. A freeze publishing at the same moment is
   * safe: either its blobs are seen as referenced, or the freeze finds them missing and fails
   * without freezing. A blob put within the grace period always survives, so put-then-freeze
   * is safe as long as the freeze follows within the grace period.
   *
   * @param grace unreferenced blobs put less than this long ago stay
   * @param mode {@link CleanupMode#DELETE} to remove, {@link CleanupMode#DRY_RUN} to report
   * @return what was (or would be) removed, with counts of what stayed
   * @throws CorruptArtifactException if a snapshot is damaged (what it references is then
   *     unknown, so nothing is removed)
   * @throws ReadOnlyArtifactStoreException if the store is read-only, in either mode
   * @throws dev.ledger.core.LockTimeoutException if the store lock is not had in time
   * @throws dev.ledger.core.LedgerIOException if a file cannot be listed or removed
   * @throws IllegalArgumentException if {@code grace} is null or negative
   * @throws NullPointerException if {@code mode} is null
   */
  BlobCollection collectGarbage(Duration grace, CleanupMode mode);

  /** Closes the store; idempotent. Operations in flight on other threads may finish. */
  @Override
  void close();
}
