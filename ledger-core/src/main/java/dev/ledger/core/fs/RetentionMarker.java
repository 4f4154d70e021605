package dev.ledger.core.fs;

import static dev.ledger.core.internal.json.JsonFields.integer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.UnsupportedFormatException;
import dev.ledger.core.internal.io.SafeFiles;
import dev.ledger.core.internal.json.JsonFields;
import dev.ledger.core.internal.json.LedgerJson;
import java.nio.file.Path;
import java.time.Instant;

/**
 * A ledger's retention marker, {@code retention.json}: where its journal starts once a
 * retention removed older segments, and the state just before that start, so that the
 * journal that is left is a complete history from there (verify folds it, repair rebuilds
 * {@code state.json} from it).
 *
 * <pre>
 * {
 *   "base" : {                     the ledger as of revision firstRevision - 1
 *     "revision" : 4096,
 *     "state" : { ... },
 *     "stateVersion" : 0,
 *     "updatedAt" : "2026-11-29T19:22:32.123Z"
 *   },
 *   "firstRevision" : 4097,        the first segment kept is named for it (its first record)
 *   "firstSequence" : 12001,       the sequence of the first event of that record on
 *   "format" : 1,
 *   "root" : "run-1"
 * }
 * </pre>
 * Absent until the first retention: the journal then starts at segment 1. Written whole by
 * temp file, {@code force}, atomic rename, directory {@code force} ({@link SafeFiles#replace})
 * under the ledger's writer lock, <em>before</em> any segment it drops is deleted: a crash
 * between the two leaves segments before {@code firstRevision} that nothing refers to; readers
 * and verify ignore them, and the next retention removes them. {@code firstRevision} only
 * grows. A file that does not parse is damage, reported, never treated as absent; a newer
 * {@code format} is refused.
 *
 * @param root the ledger's root id
 * @param firstRevision the revision of the first record the journal holds (at least 2)
 * @param firstSequence the sequence of the first event from that record on
 * @param baseUpdatedAt the commit time of revision {@code firstRevision - 1}
 * @param baseState the state as of revision {@code firstRevision - 1}
 * @param baseStateVersion the state version of {@code baseState}
 */
record RetentionMarker(String root, long firstRevision, long firstSequence,
    Instant baseUpdatedAt, JsonNode baseState, int baseStateVersion) {
  /** The marker's file name in the ledger's directory. */
  static final String FILE = "retention.json";
  static final int FORMAT = 1;

  /** The last revision removed. */
  long baseRevision() {
    return firstRevision - 1;
  }

  byte[] encode() {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    ObjectNode base = node.putObject("base");
    base.put("revision", baseRevision());
    base.set("state", baseState);
    base.put("stateVersion", baseStateVersion);
    base.put("updatedAt", baseUpdatedAt.toString());
    node.put("firstRevision", firstRevision);
    node.put("firstSequence", firstSequence);
    node.put("format", FORMAT);
    node.put("root", root);
    return LedgerJson.pretty(node);
  }

  /**
   * Reads the marker of {@code root} in its directory, or null if there is none.
   *
   * @throws CorruptLedgerException if the file exists but is not a valid marker of root
   * @throws UnsupportedFormatException if it has a newer format
   * @throws dev.ledger.core.LedgerIOException if it cannot be read
   */
  static RetentionMarker read(Path ledgerDir, String root, long maxBytes) {
    Path file = ledgerDir.resolve(FILE);
    JsonNode node = JsonFile.read(file, maxBytes, "retention marker", LedgerJson::parse);
    if (node == null) {
      return null;
    }
    try {
      JsonFile.format(node, file, "retention marker format", FORMAT);
      JsonFile.requireRoot(node, root);
      JsonNode base = node.get("base");
      if (base == null || !base.isObject()) {
        throw new IllegalArgumentException("field 'base' must be an object");
      }
      JsonNode state = base.get("state");
      if (state == null || state.isNull()) {
        throw new IllegalArgumentException("field 'base.state' is missing");
      }
      JsonNode updated = base.get("updatedAt");
      if (updated == null || !updated.isTextual()) {
        throw new IllegalArgumentException("field 'base.updatedAt' must be a string");
      }
      long stateVersion = integer(base, "stateVersion");
      if (stateVersion < 0 || stateVersion > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("field 'base.stateVersion' out of range: "
            + stateVersion);
      }
      long firstRevision = integer(node, "firstRevision");
      long firstSequence = integer(node, "firstSequence");
      if (firstRevision < 2 || firstSequence < 1
          || integer(base, "revision") != firstRevision - 1) {
        throw new IllegalArgumentException("inconsistent revision or sequence");
      }
      return new RetentionMarker(root, firstRevision, firstSequence,
          JsonFields.instant(updated.textValue(), "base.updatedAt"), state, (int) stateVersion);
    } catch (IllegalArgumentException e) {
      throw new CorruptLedgerException(file, -1, "invalid retention marker: " + e.getMessage(),
          e);
    }
  }
}
