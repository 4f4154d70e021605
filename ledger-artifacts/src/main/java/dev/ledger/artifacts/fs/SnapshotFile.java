package dev.ledger.artifacts.fs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.CorruptArtifactException;
import dev.ledger.artifacts.SnapshotContent;
import dev.ledger.core.InvalidIdentifierException;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.UnsupportedFormatException;
import dev.ledger.core.internal.io.SafeFiles;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * The file of one frozen snapshot, {@code attempts/<root dir>/<snapshot id>.json}:
 *
 * <pre>
 * {
 *   "attemptId" : "attempt-7",
 *   "content" : {                          normalized content, see SnapshotContent
 *     "artifactRefs" : [ { "blob" : "sha256:&lt;hex&gt;", "name" : "report.html" } ],
 *     "evidenceRefs" : [ ],
 *     "summary" : "done"
 *   },
 *   "format" : 1,
 *   "frozenAt" : "2026-11-29T12:00:00Z",
 *   "kind" : "dev.ledger.artifact-snapshot",
 *   "rootId" : "run-1",
 *   "sha256" : "&lt;hex of the content's canonical JSON&gt;",
 *   "snapshotId" : "attempt-&lt;sha256 hex of the attempt id&gt;"
 * }
 * </pre>
 * Keys sorted, two-space indentation, trailing newline: the same snapshot always gives the
 * same bytes. Immutable once published (read-only, 0400). Invariants checked on every read,
 * any failure being {@link CorruptArtifactException}: the file name is the snapshot id, the
 * snapshot id is derived from the attempt id, the root id is the directory's, the digest is
 * the content's. A newer {@code format} is refused with {@link UnsupportedFormatException}.
 */
final class SnapshotFile {
  static final int FORMAT = 1;
  static final String KIND = "dev.ledger.artifact-snapshot";
  /** Largest snapshot file read; larger ones are damage, not something to load. */
  static final long MAX_BYTES = 16L * 1024 * 1024;

  private static final Set<String> FIELDS = Set.of("attemptId", "content", "format",
      "frozenAt", "kind", "rootId", "sha256", "snapshotId");

  private SnapshotFile() {}

  static byte[] encode(ArtifactSnapshot snapshot) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("attemptId", snapshot.attemptId());
    node.set("content", snapshot.content().toJson());
    node.put("format", FORMAT);
    node.put("frozenAt", snapshot.frozenAt().toString());
    node.put("kind", KIND);
    node.put("rootId", snapshot.rootId());
    node.put("sha256", snapshot.sha256());
    node.put("snapshotId", snapshot.snapshotId());
    return LedgerJson.pretty(node);
  }

  /**
   * Reads the snapshot at {@code file}, which must be {@code snapshotId} of {@code rootId}.
   *
   * @return the snapshot, or null if the file does not exist
   * @throws CorruptArtifactException if it is not a valid snapshot of that name and root
   * @throws UnsupportedFormatException if it has a newer format
   */
  static ArtifactSnapshot read(Path file, String rootId, String snapshotId) {
    byte[] bytes;
    try {
      bytes = SafeFiles.readBounded(file, MAX_BYTES);
    } catch (NoSuchFileException e) {
      return null;
    } catch (SafeFiles.FileTooLargeException e) {
      throw new CorruptArtifactException(file, e.getMessage(), e);
    } catch (IOException e) {
      throw new LedgerIOException("reading snapshot", file, e);
    }
    return decode(file, bytes, rootId, snapshotId);
  }

  static ArtifactSnapshot decode(Path file, byte[] bytes, String rootId, String snapshotId) {
    JsonNode node;
    try {
      node = LedgerJson.parse(bytes);
    } catch (IOException e) {
      throw new CorruptArtifactException(file, "not JSON: " + e.getMessage(), e);
    }
    if (!node.isObject()) {
      throw new CorruptArtifactException(file, "not a JSON object");
    }
    JsonNode format = node.get("format");
    if (format == null || !format.isIntegralNumber() || format.longValue() < 1) {
      throw new CorruptArtifactException(file, "missing or invalid 'format'");
    }
    if (format.longValue() > FORMAT) {
      throw new UnsupportedFormatException(file, "artifact snapshot format", format.longValue(),
          FORMAT);
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = node.properties().iterator();
        it.hasNext(); ) {
      String key = it.next().getKey();
      if (!FIELDS.contains(key)) {
        throw new CorruptArtifactException(file, "unknown field '" + key + "'");
      }
    }
    if (!KIND.equals(text(file, node, "kind"))) {
      throw new CorruptArtifactException(file, "not a snapshot: kind is not '" + KIND + "'");
    }
    ArtifactSnapshot snapshot;
    try {
      snapshot = new ArtifactSnapshot(text(file, node, "rootId"),
          text(file, node, "snapshotId"), text(file, node, "attemptId"),
          SnapshotContent.fromJson(node.get("content")),
          text(file, node, "sha256"), Instant.parse(text(file, node, "frozenAt")));
    } catch (IllegalArgumentException | DateTimeParseException
        | InvalidIdentifierException e) {
      throw new CorruptArtifactException(file, e.getMessage(), e);
    }
    if (!snapshot.rootId().equals(rootId)) {
      throw new CorruptArtifactException(file, "belongs to root '" + snapshot.rootId()
          + "', found in the directory of root '" + rootId + "'");
    }
    if (!snapshot.snapshotId().equals(snapshotId)) {
      throw new CorruptArtifactException(file, "holds snapshot " + snapshot.snapshotId()
          + " under the name of " + snapshotId);
    }
    return snapshot;
  }

  private static String text(Path file, JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null || !value.isTextual()) {
      throw new CorruptArtifactException(file, "missing or non-string '" + field + "'");
    }
    return value.textValue();
  }
}
