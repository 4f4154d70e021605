package dev.ledger.core;

import com.google.common.base.Preconditions;

/**
 * An opaque position in a store's sorted list of root ids: {@linkplain LedgerStore#rootIds(
 * RootIdCursor, int) paging} after a cursor returns the root ids that sort after the last one
 * it covers (exclusive). Unlike an event {@link Cursor} it is bound to no ledger and to no
 * store: it names a place in the order of root ids, so it stays valid while ledgers are
 * created, and may be stored and passed back later, including to another process or store.
 * The token is url-safe.
 *
 * <p>Tokens are validated when used, not when wrapped: a malformed token makes the read throw
 * {@link InvalidCursorException}.
 *
 * @param token the opaque token; empty for {@link #START}
 */
public record RootIdCursor(String token) {
  /** The position before the first root id. */
  public static final RootIdCursor START = new RootIdCursor("");

  /**
   * Validates that the token is not null; the content is checked when the cursor is used.
   *
   * @param token the opaque token; empty for {@link #START}
   * @throws NullPointerException if {@code token} is null
   */
  public RootIdCursor {
    Preconditions.checkNotNull(token, "root id cursor token");
  }

  /**
   * Wraps a token received from outside (a request, a file); {@code ""} means START.
   *
   * @param token the token, as {@link #token()} gave it
   * @return the cursor; a malformed token is refused when the cursor is used
   * @throws NullPointerException if {@code token} is null
   */
  public static RootIdCursor of(String token) {
    return new RootIdCursor(token);
  }

  /**
   * Whether this is the start position, before the first root id.
   *
   * @return true for {@link #START} and any cursor with an empty token
   */
  public boolean isStart() {
    return token.isEmpty();
  }

  @Override
  public String toString() {
    return isStart() ? "RootIdCursor[START]" : "RootIdCursor[" + token + "]";
  }
}
