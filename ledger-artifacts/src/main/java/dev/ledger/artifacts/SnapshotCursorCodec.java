package dev.ledger.artifacts;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.common.io.BaseEncoding;
import dev.ledger.core.InvalidCursorException;
import dev.ledger.core.internal.io.Identifiers;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Optional;
import java.util.Set;

/**
 * Encodes and validates {@link SnapshotCursor} tokens (format in {@link SnapshotCursor#after}).
 * Decoding refuses, with {@link InvalidCursorException}, tokens longer than
 * {@link #MAX_TOKEN_LENGTH}, not base64, not exactly that object, of another root, or of a
 * newer version; it reads nothing but the token.
 */
final class SnapshotCursorCodec {
  static final int VERSION = 1;
  static final int MAX_TOKEN_LENGTH = 256;

  private static final BaseEncoding BASE64 = BaseEncoding.base64Url().omitPadding();
  private static final Set<String> KEYS = Set.of("after", "root", "v");

  private SnapshotCursorCodec() {}

  static SnapshotCursor encode(String rootId, String snapshotId) {
    Identifiers.check("root id", rootId);
    String hex = ArtifactSnapshot.checkId(snapshotId)
        .substring(ArtifactSnapshot.ID_PREFIX.length());
    String json = "{\"after\":\"" + hex + "\",\"root\":\"" + rootDigest(rootId) + "\",\"v\":"
        + VERSION + "}";
    return SnapshotCursor.of(BASE64.encode(json.getBytes(StandardCharsets.US_ASCII)));
  }

  static Optional<String> decode(String rootId, SnapshotCursor cursor) {
    Identifiers.check("root id", rootId);
    String token = cursor.token();
    if (token.isEmpty()) {
      return Optional.empty();
    }
    if (token.length() > MAX_TOKEN_LENGTH) {
      throw invalid(rootId, "token has " + token.length() + " characters; at most "
          + MAX_TOKEN_LENGTH + " are valid");
    }
    byte[] raw;
    try {
      raw = BASE64.decode(token);
    } catch (IllegalArgumentException e) {
      throw invalid(rootId, "token is not url-safe base64 without padding");
    }
    JsonNode node;
    try {
      node = LedgerJson.parse(raw);
    } catch (IOException e) {
      throw invalid(rootId, "token does not hold a cursor");
    }
    if (node == null || !node.isObject()) {
      throw invalid(rootId, "token does not hold a cursor object");
    }
    JsonNode version = node.get("v");
    if (version == null || !version.isIntegralNumber() || !version.canConvertToLong()) {
      throw invalid(rootId, "cursor field 'v' is missing or not an integer");
    }
    if (version.longValue() > VERSION) {
      throw invalid(rootId, "cursor version " + version.longValue()
          + " is newer than the supported " + VERSION);
    }
    if (version.longValue() != VERSION) {
      throw invalid(rootId, "unknown cursor version " + version.longValue());
    }
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!KEYS.contains(name)) {
        throw invalid(rootId, "unexpected cursor field '" + name
            + "' (not a snapshot listing cursor)");
      }
    }
    JsonNode root = node.get("root");
    if (root == null || !root.isTextual()) {
      throw invalid(rootId, "cursor names no root");
    }
    if (!root.textValue().equals(rootDigest(rootId))) {
      throw invalid(rootId, "cursor was issued for another root");
    }
    JsonNode after = node.get("after");
    if (after == null || !after.isTextual() || !ContentId.isHex64(after.textValue())) {
      throw invalid(rootId, "cursor field 'after' is not 64 lower-case hex digits");
    }
    String snapshotId = ArtifactSnapshot.ID_PREFIX + after.textValue();
    if (!encode(rootId, snapshotId).token().equals(token)) {
      // Same fields, other bytes (spacing, key order, stray base64 bits): not a token we issued.
      throw invalid(rootId, "token is not in the form this library issues");
    }
    return Optional.of(snapshotId);
  }

  private static InvalidCursorException invalid(String rootId, String detail) {
    return new InvalidCursorException("Invalid snapshot cursor for root '" + rootId + "': "
        + detail);
  }

  private static String rootDigest(String rootId) {
    return LedgerJson.sha256Hex(rootId).substring(0, 16);
  }
}
