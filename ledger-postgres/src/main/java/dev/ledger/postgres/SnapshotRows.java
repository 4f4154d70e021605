package dev.ledger.postgres;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.CorruptArtifactException;
import dev.ledger.artifacts.SnapshotContent;
import dev.ledger.core.InvalidIdentifierException;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The statements of the {@code artifact_snapshots} table ({@link Schema} documents it) and the
 * decoding of its rows. Every row read is checked as a snapshot file is: the snapshot id is the
 * attempt's, the digest is the content's, the root is the one asked for; a row that fails is
 * {@link CorruptArtifactException} naming {@code <schema>.artifact_snapshots/<root>/<snapshot>}.
 * Stateless apart from the table name; the caller owns the connection and its transaction.
 */
final class SnapshotRows {
  private static final String COLUMNS =
      "root_id, attempt_id, snapshot_id, sha256, frozen_at, content";

  private final String table;

  SnapshotRows(String schema) {
    this.table = schema + ".artifact_snapshots";
  }

  String table() {
    return table;
  }

  /** The snapshot of an attempt, or null. */
  ArtifactSnapshot byAttempt(Connection c, String rootId, String attemptId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM " + table
        + " WHERE root_id = ? AND attempt_id = ?")) {
      ps.setString(1, rootId);
      ps.setString(2, attemptId);
      return single(ps, rootId, ArtifactSnapshot.idFor(attemptId));
    }
  }

  /** The snapshot of that id, or null. */
  ArtifactSnapshot bySnapshotId(Connection c, String rootId, String snapshotId)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM " + table
        + " WHERE root_id = ? AND snapshot_id = ?")) {
      ps.setString(1, rootId);
      ps.setString(2, snapshotId);
      return single(ps, rootId, snapshotId);
    }
  }

  private ArtifactSnapshot single(PreparedStatement ps, String rootId, String snapshotId)
      throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      return rs.next() ? decode(rs, rootId, snapshotId) : null;
    }
  }

  /**
   * Inserts {@code snapshot} unless its attempt (or snapshot id) has a row; a racing insert of
   * the same attempt in another transaction is waited for, and then decides.
   *
   * @return true if this insert stored it
   */
  boolean insertIfAbsent(Connection c, ArtifactSnapshot snapshot) throws SQLException {
    List<String> blobs = snapshot.content().blobs().stream().map(ContentId::hex).toList();
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (" + COLUMNS
        + ", blobs) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")) {
      ps.setString(1, snapshot.rootId());
      ps.setString(2, snapshot.attemptId());
      ps.setString(3, snapshot.snapshotId());
      ps.setString(4, snapshot.sha256());
      ps.setString(5, snapshot.frozenAt().toString());
      ps.setBytes(6, snapshot.content().canonicalJson());
      ps.setArray(7, c.createArrayOf("text", blobs.toArray()));
      return ps.executeUpdate() == 1;
    }
  }

  /**
   * Up to {@code limit} snapshots of a root after {@code afterSnapshotId} (null: from the
   * start), in snapshot id order.
   */
  List<ArtifactSnapshot> page(Connection c, String rootId, String afterSnapshotId, int limit)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM " + table
        + " WHERE root_id = ? AND snapshot_id > ? ORDER BY snapshot_id LIMIT ?")) {
      ps.setString(1, rootId);
      ps.setString(2, afterSnapshotId == null ? "" : afterSnapshotId);
      ps.setInt(3, limit);
      return all(ps, rootId);
    }
  }

  /** Every snapshot of a root, in snapshot id order, optionally locked for update. */
  List<ArtifactSnapshot> ofRoot(Connection c, String rootId, boolean forUpdate)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM " + table
        + " WHERE root_id = ? ORDER BY snapshot_id" + (forUpdate ? " FOR UPDATE" : ""))) {
      ps.setString(1, rootId);
      return all(ps, rootId);
    }
  }

  private List<ArtifactSnapshot> all(PreparedStatement ps, String rootId) throws SQLException {
    List<ArtifactSnapshot> out = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(decode(rs, rootId, rs.getString("snapshot_id")));
      }
    }
    return out;
  }

  /** Deletes the named snapshots of a root; returns how many rows went. */
  int delete(Connection c, String rootId, Collection<String> snapshotIds) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table
        + " WHERE root_id = ? AND snapshot_id = ANY (?)")) {
      ps.setString(1, rootId);
      ps.setArray(2, c.createArrayOf("text", snapshotIds.toArray()));
      return ps.executeUpdate();
    }
  }

  /** The roots with at least one snapshot, in "C" (String) order. */
  List<String> rootIds(Connection c) throws SQLException {
    List<String> roots = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT DISTINCT root_id FROM " + table
        + " ORDER BY root_id"); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        roots.add(rs.getString(1));
      }
    }
    return roots;
  }

  /**
   * The mark of a garbage collection: every blob some snapshot references. A value that is not
   * a blob id is damage: what its row references is then unknown.
   */
  Set<ContentId> referencedBlobs(Connection c) throws SQLException {
    Set<ContentId> referenced = new HashSet<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT DISTINCT unnest(blobs) FROM "
        + table); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        String hex = rs.getString(1);
        if (hex == null || !ContentId.isHex64(hex)) {
          throw new CorruptArtifactException(Path.of(table),
              "a row references '" + hex + "', which is not a blob id");
        }
        referenced.add(new ContentId(hex));
      }
    }
    return referenced;
  }

  /** A row's key: its root and snapshot id as stored. */
  record Key(String rootId, String snapshotId) {}

  /**
   * A row as {@code verify} sees it: its key, the snapshot it decodes to or what is wrong with
   * it, and its {@code blobs} column (elements may be null).
   */
  record Checked(Key key, ArtifactSnapshot snapshot, String damage, List<String> blobColumn) {}

  /** What names a row in reports and exceptions: {@code <table>/<root>/<snapshot id>}. */
  Path where(Key key) {
    return Path.of(table, key.rootId(), key.snapshotId());
  }

  /** The {@code blobs} column a snapshot's row is written with. */
  static List<String> blobColumnOf(ArtifactSnapshot snapshot) {
    return snapshot.content().blobs().stream().map(ContentId::hex).toList();
  }

  /**
   * Up to {@code limit} rows after {@code after} (null: from the first) in root and snapshot
   * id order, each decoded and checked as every read checks it; a row that fails is returned
   * with what is wrong rather than thrown.
   */
  List<Checked> verifyPage(Connection c, Key after, int limit) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + ", blobs FROM "
        + table + " WHERE (root_id, snapshot_id) > (?, ?) ORDER BY root_id, snapshot_id"
        + " LIMIT ?")) {
      ps.setString(1, after == null ? "" : after.rootId());
      ps.setString(2, after == null ? "" : after.snapshotId());
      ps.setInt(3, limit);
      List<Checked> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          Key key = new Key(rs.getString("root_id"), rs.getString("snapshot_id"));
          java.sql.Array array = rs.getArray("blobs");
          List<String> column = array == null ? List.of()
              : java.util.Arrays.asList((String[]) array.getArray());
          try {
            out.add(new Checked(key, decode(rs, key.rootId(), key.snapshotId()), null, column));
          } catch (CorruptArtifactException e) {
            out.add(new Checked(key, null, e.getMessage(), column));
          }
        }
      }
      return out;
    }
  }

  /** Whether the row of that snapshot exists. */
  boolean exists(Connection c, String rootId, String snapshotId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM " + table
        + " WHERE root_id = ? AND snapshot_id = ?")) {
      ps.setString(1, rootId);
      ps.setString(2, snapshotId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  private ArtifactSnapshot decode(ResultSet rs, String rootId, String snapshotId)
      throws SQLException {
    Path where = Path.of(table, rootId, snapshotId);
    ArtifactSnapshot snapshot;
    try {
      JsonNode content = LedgerJson.parse(rs.getBytes("content"));
      snapshot = new ArtifactSnapshot(rs.getString("root_id"), rs.getString("snapshot_id"),
          rs.getString("attempt_id"), SnapshotContent.fromJson(content), rs.getString("sha256"),
          Instant.parse(rs.getString("frozen_at")));
    } catch (IOException e) {
      throw new CorruptArtifactException(where, "content is not JSON: " + e.getMessage(), e);
    } catch (IllegalArgumentException | NullPointerException | DateTimeParseException
        | InvalidIdentifierException e) {
      throw new CorruptArtifactException(where, e.getMessage(), e);
    }
    if (!snapshot.rootId().equals(rootId) || !snapshot.snapshotId().equals(snapshotId)) {
      throw new CorruptArtifactException(where, "holds snapshot " + snapshot.snapshotId()
          + " of root '" + snapshot.rootId() + "'");
    }
    return snapshot;
  }
}
