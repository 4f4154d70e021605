package dev.ledger.artifacts;

import com.google.common.base.Preconditions;
import dev.ledger.core.InvalidCursorException;
import java.util.Optional;

/**
 * An opaque position in the listing of one root's snapshots ({@link ArtifactStore#list}):
 * listing after a cursor returns the snapshots whose id sorts after the last one it covers.
 * A cursor is bound to the root that issued it; the token is url-safe base64 and may be
 * stored and passed back later, by another process or after a restart, to any store holding
 * that root (a copied directory, a read-only store).
 *
 * <p>Tokens are validated when used, not when wrapped: a malformed, forged, foreign (another
 * root's, a journal {@link dev.ledger.core.Cursor}'s) or newer-version token makes the listing
 * throw {@link InvalidCursorException}, the same exception a bad journal cursor gives, and
 * nothing is read. A well-formed cursor after a snapshot that has since been removed stays
 * valid: the listing continues after where that id would sort.
 *
 * <p>This is a separate type from the journal's {@link dev.ledger.core.Cursor} so that the
 * compiler keeps the two apart; see {@link #after} for the token format.
 *
 * @param token the opaque token; empty for {@link #START}
 */
public record SnapshotCursor(String token) {
  /** The position before the first snapshot of any root. */
  public static final SnapshotCursor START = new SnapshotCursor("");

  /**
   * Validates that the token is not null; its content is checked when the cursor is used.
   *
   * @param token the opaque token; empty for the start
   * @throws NullPointerException if {@code token} is null
   */
  public SnapshotCursor {
    Preconditions.checkNotNull(token, "snapshot cursor token");
  }

  /**
   * Wraps a token received from outside (a request, a file); {@code ""} means {@link #START}.
   *
   * @param token the token, as {@link #token()} gave it
   * @return the cursor, validated only when used
   * @throws NullPointerException if {@code token} is null
   */
  public static SnapshotCursor of(String token) {
    return new SnapshotCursor(token);
  }

  /**
   * The cursor just after snapshot {@code snapshotId} of root {@code rootId}; for stores
   * building their {@link SnapshotPage}s (see {@link SnapshotPage#of}).
   *
   * <p>The token is url-safe base64, without padding, of the compact JSON object
   * <pre>
   * {"after":"&lt;64 hex of the snapshot id&gt;","root":"&lt;16 hex&gt;","v":1}
   * </pre>
   * where {@code root} is the first 16 hex digits of the SHA-256 of the root id. Decoding
   * accepts exactly the bytes this method writes.
   *
   * @param rootId the root whose listing the cursor belongs to
   * @param snapshotId the last snapshot the cursor covers
   * @return the cursor
   * @throws dev.ledger.core.InvalidIdentifierException if {@code rootId} or
   *     {@code snapshotId} is not a valid root id or snapshot id
   */
  public static SnapshotCursor after(String rootId, String snapshotId) {
    return SnapshotCursorCodec.encode(rootId, snapshotId);
  }

  /**
   * Decodes this cursor for a listing of root {@code rootId}.
   *
   * @param rootId the root being listed
   * @return the id of the last snapshot the cursor covers, or empty for {@link #START}
   * @throws InvalidCursorException if the token is malformed, forged, of another root or of
   *     a newer version
   * @throws dev.ledger.core.InvalidIdentifierException if {@code rootId} is not a valid root
   *     id
   */
  public Optional<String> lastSnapshotId(String rootId) {
    return SnapshotCursorCodec.decode(rootId, this);
  }

  /**
   * Whether this is the start position.
   *
   * @return true for {@link #START} (the empty token)
   */
  public boolean isStart() {
    return token.isEmpty();
  }

  /**
   * A short description for logs.
   *
   * @return {@code SnapshotCursor[START]} or {@code SnapshotCursor[<token>]}
   */
  @Override
  public String toString() {
    return isStart() ? "SnapshotCursor[START]" : "SnapshotCursor[" + token + "]";
  }
}
