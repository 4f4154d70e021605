package dev.ledger.core.internal.io;

import dev.ledger.core.InvalidCursorException;
import dev.ledger.core.RootIdCursor;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The token of a {@link RootIdCursor}: url-safe base64 (no padding) of {@code "ids1:"}
 * followed by the last root id the cursor covers. The prefix carries the token's version.
 */
public final class RootIdCursors {
  private static final String PREFIX = "ids1:";

  private RootIdCursors() {}

  /**
   * The cursor just after {@code rootId}.
   *
   * @param rootId a valid root id
   * @return the cursor
   */
  public static RootIdCursor after(String rootId) {
    return new RootIdCursor(Base64.getUrlEncoder().withoutPadding().encodeToString(
        (PREFIX + rootId).getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * The last root id {@code cursor} covers.
   *
   * @param cursor the cursor
   * @return the root id, or the empty string for START
   * @throws InvalidCursorException if the token is malformed or names no valid root id
   */
  public static String lastRootId(RootIdCursor cursor) {
    if (cursor.isStart()) {
      return "";
    }
    String decoded;
    try {
      decoded = new String(Base64.getUrlDecoder().decode(cursor.token()),
          StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw invalid(cursor, "not url-safe base64");
    }
    if (!decoded.startsWith(PREFIX)) {
      throw invalid(cursor, "not a root id cursor of a known version");
    }
    String id = decoded.substring(PREFIX.length());
    if (!Identifiers.isValid(id)) {
      throw invalid(cursor, "names no valid root id");
    }
    return id;
  }

  private static InvalidCursorException invalid(RootIdCursor cursor, String why) {
    return new InvalidCursorException("Invalid root id cursor '" + cursor.token() + "': " + why);
  }
}
