package dev.ledger.postgres;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.LedgerException;
import dev.ledger.core.internal.json.LedgerJson;
import dev.ledger.core.internal.json.MergePatch;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The latest state of a ledger whose head row lags behind: after patch-log commits
 * ({@link PostgresPatchLog}) the row's {@code state} is that of its
 * {@code checkpoint_revision}, and the commits after it carry merge patches that fold onto it.
 * A ledger only ever committed through {@link PostgresLedger} has a null checkpoint revision
 * and its state is read as it is.
 */
final class HeadState {
  private HeadState() {}

  /**
   * The state at {@code revision}: {@code stored} (the row's state, null when the ledger has
   * no checkpoint yet) if {@code checkpointRevision} is null or {@code revision}, else
   * {@code stored} with the commits after {@code checkpointRevision} up to {@code revision}
   * folded onto it, read in the caller's connection (inside its snapshot, if it has one).
   *
   * @throws LedgerException if a commit row is missing or its JSON is damaged
   */
  static JsonNode latest(Connection c, PostgresLedgerStore.Tables tables, String root,
      byte[] stored, Long checkpointRevision, long revision) throws SQLException {
    JsonNode base = stored == null ? null : parse(stored, root, tables, "state");
    if (checkpointRevision == null || checkpointRevision == revision) {
      if (base == null) {
        throw damaged(root, tables, "the head row at revision " + revision + " has no state");
      }
      return base;
    }
    return fold(c, tables, root, base, checkpointRevision, revision);
  }

  /**
   * Folds the commits in {@code (from, to]} onto {@code base} (null for no state): a commit
   * with a whole state replaces it, a patch is applied in place to one copy of the base.
   */
  static JsonNode fold(Connection c, PostgresLedgerStore.Tables tables, String root,
      JsonNode base, long from, long to) throws SQLException {
    JsonNode state = base == null ? null : base.deepCopy();
    long expected = from + 1;
    try (PreparedStatement ps = c.prepareStatement("SELECT revision, state, patch FROM "
        + tables.commits() + " WHERE root_id = ? AND revision > ? AND revision <= ?"
        + " ORDER BY revision")) {
      ps.setFetchSize(256);
      ps.setString(1, root);
      ps.setLong(2, from);
      ps.setLong(3, to);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          long r = rs.getLong(1);
          if (r != expected) {
            throw damaged(root, tables, "commit " + expected + " is missing");
          }
          expected++;
          byte[] whole = rs.getBytes(2);
          if (whole != null) {
            state = parse(whole, root, tables, "state of revision " + r);
          } else {
            JsonNode patch = parse(rs.getBytes(3), root, tables, "patch of revision " + r);
            ObjectNode target = state != null && state.isObject() ? (ObjectNode) state
                : JsonNodeFactory.instance.objectNode();
            state = patch.isObject() ? MergePatch.applyInPlace(target, (ObjectNode) patch)
                : patch.deepCopy();
          }
        }
      }
    }
    if (expected != to + 1) {
      throw damaged(root, tables, "commits " + expected + " to " + to + " are missing");
    }
    return state;
  }

  private static JsonNode parse(byte[] bytes, String root, PostgresLedgerStore.Tables tables,
      String what) {
    try {
      return LedgerJson.parse(bytes);
    } catch (IOException e) {
      throw damaged(root, tables, "the " + what + " is not valid JSON: " + e.getMessage());
    }
  }

  static LedgerException damaged(String root, PostgresLedgerStore.Tables tables,
      String detail) {
    return new LedgerException("Ledger '" + root + "' in " + tables + " is damaged: " + detail);
  }
}
