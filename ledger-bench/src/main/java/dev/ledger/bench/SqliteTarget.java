package dev.ledger.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * SQLite through JDBC in WAL mode: one transaction per commit that updates the state row
 * only at the expected revision (the revision is checked in the UPDATE's WHERE) and inserts
 * the event.
 */
final class SqliteTarget implements CommitTarget {
  private final Connection connection;
  private final PreparedStatement update;
  private final PreparedStatement insert;
  private long revision;

  /** {@code synchronous} is FULL or NORMAL. */
  SqliteTarget(Path file, String synchronous) throws Exception {
    Files.createDirectories(file.getParent());
    connection = DriverManager.getConnection("jdbc:sqlite:" + file);
    try (Statement s = connection.createStatement()) {
      s.execute("PRAGMA journal_mode=WAL");
      s.execute("PRAGMA synchronous=" + synchronous);
      s.execute("CREATE TABLE IF NOT EXISTS state (id INTEGER PRIMARY KEY,"
          + " revision INTEGER NOT NULL, body TEXT NOT NULL)");
      s.execute("CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY,"
          + " revision INTEGER NOT NULL, type TEXT NOT NULL, payload TEXT NOT NULL)");
      s.execute("INSERT OR IGNORE INTO state (id, revision, body) VALUES (1, 0, '{}')");
    }
    connection.setAutoCommit(false);
    update = connection.prepareStatement(
        "UPDATE state SET revision = ?, body = ? WHERE id = 1 AND revision = ?");
    insert = connection.prepareStatement(
        "INSERT INTO events (revision, type, payload) VALUES (?, ?, ?)");
    try (Statement s = connection.createStatement();
        var rs = s.executeQuery("SELECT revision FROM state WHERE id = 1")) {
      rs.next();
      revision = rs.getLong(1);
    }
    connection.commit();
  }

  @Override
  public void commit() throws SQLException {
    long next = revision + 1;
    update.setLong(1, next);
    update.setString(2, new String(Workload.stateJson(next), StandardCharsets.UTF_8));
    update.setLong(3, revision);
    if (update.executeUpdate() != 1) {
      connection.rollback();
      throw new IllegalStateException("revision conflict at " + revision);
    }
    insert.setLong(1, next);
    insert.setString(2, "task.done");
    insert.setString(3, new String(Workload.toJson(Workload.eventPayload(next)),
        StandardCharsets.UTF_8));
    insert.executeUpdate();
    connection.commit();
    revision = next;
  }

  @Override
  public void close() throws SQLException {
    update.close();
    insert.close();
    connection.close();
  }
}
