package dev.ledger.artifacts.fs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.artifacts.CorruptArtifactException;
import dev.ledger.core.UnsupportedFormatException;
import dev.ledger.core.internal.io.SafeFiles;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The marker that makes a directory an artifact store, {@code artifacts/format.json}:
 * <pre>
 * {
 *   "format" : 1,
 *   "kind" : "dev.ledger.artifacts"
 * }
 * </pre>
 * Written once, by the first writable open (first link wins against racing openers), and
 * never changed. Every open checks it: another {@code kind}, a non-positive or non-integer
 * {@code format}, or a file that is not such JSON is {@link CorruptArtifactException}; a newer
 * {@code format} is {@link UnsupportedFormatException}.
 */
final class StoreMarker {
  static final String KIND = "dev.ledger.artifacts";
  static final int FORMAT = 1;
  /** Largest marker read; anything bigger is not a marker. */
  private static final long MAX_BYTES = 4096;

  private StoreMarker() {}

  /** The bytes of a new marker. */
  static byte[] encode() {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("format", FORMAT);
    node.put("kind", KIND);
    return LedgerJson.pretty(node);
  }

  /**
   * Reads and checks the marker at {@code marker}.
   *
   * @throws IOException if it cannot be read (a {@code NoSuchFileException} if it is absent)
   * @throws CorruptArtifactException if it is not an artifact store marker
   * @throws UnsupportedFormatException if it has a newer format
   */
  static void check(Path marker) throws IOException {
    byte[] bytes;
    try {
      bytes = SafeFiles.readBounded(marker, MAX_BYTES);
    } catch (SafeFiles.FileTooLargeException e) {
      throw new CorruptArtifactException(marker, e.getMessage(), e);
    }
    JsonNode node;
    try {
      node = LedgerJson.parse(bytes);
    } catch (IOException e) {
      throw new CorruptArtifactException(marker, "not an artifact store marker (not JSON)", e);
    }
    JsonNode format = node.get("format");
    if (node.get("kind") == null || !KIND.equals(node.get("kind").asText()) || format == null
        || !format.isIntegralNumber() || format.longValue() < 1) {
      throw new CorruptArtifactException(marker, "not an artifact store marker: expected kind '"
          + KIND + "' and a positive integer format");
    }
    if (format.longValue() > FORMAT) {
      throw new UnsupportedFormatException(marker, "artifact store format", format.longValue(),
          FORMAT);
    }
  }
}
