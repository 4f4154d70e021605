package dev.ledger.core;

import com.google.common.base.Preconditions;

/**
 * An opaque position in a ledger's event journal: reading {@linkplain Ledger#events after} a
 * cursor returns the events committed after the last event it covers (exclusive). A cursor is
 * bound to the ledger that issued it; the token is url-safe base64 and may be stored and
 * passed back later, including by another process or after a restart.
 *
 * <p>Tokens are validated when used, not when wrapped: a malformed, foreign, newer-version or
 * beyond-the-end token makes the read throw {@link InvalidCursorException}.
 *
 * @param token the opaque token; empty for {@link #START}
 */
public record Cursor(String token) {
  /** The position before the first event of any ledger. */
  public static final Cursor START = new Cursor("");

  /**
   * Validates that the token is not null; the content is checked when the cursor is used.
   *
   * @param token the opaque token; empty for {@link #START}
   * @throws NullPointerException if {@code token} is null
   */
  public Cursor {
    Preconditions.checkNotNull(token, "cursor token");
  }

  /**
   * Wraps a token received from outside (a request, a file); {@code ""} means START.
   *
   * @param token the token, as {@link #token()} gave it
   * @return the cursor; a malformed token is refused when the cursor is used
   * @throws NullPointerException if {@code token} is null
   */
  public static Cursor of(String token) {
    return new Cursor(token);
  }

  /**
   * Whether this is the start position, before the first event of any ledger.
   *
   * @return true for {@link #START} and any cursor with an empty token
   */
  public boolean isStart() {
    return token.isEmpty();
  }

  @Override
  public String toString() {
    return isStart() ? "Cursor[START]" : "Cursor[" + token + "]";
  }
}
