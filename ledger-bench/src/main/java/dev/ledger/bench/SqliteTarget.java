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
  private final String pragmas;
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
    pragmas = readBack(connection, synchronous);
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

  /**
   * What the connection really runs with, read back from SQLite after the PRAGMAs were set:
   * a driver or a build may ignore a PRAGMA silently (an in-memory or read-only database
   * refuses WAL), and a peer measured with weaker settings than its label would flatter it.
   *
   * @throws IllegalStateException if journal_mode is not wal or synchronous not the level asked
   */
  private static String readBack(Connection connection, String synchronous) throws SQLException {
    String mode;
    int level;
    String version;
    try (Statement s = connection.createStatement()) {
      try (var rs = s.executeQuery("PRAGMA journal_mode")) {
        rs.next();
        mode = rs.getString(1);
      }
      try (var rs = s.executeQuery("PRAGMA synchronous")) {
        rs.next();
        level = rs.getInt(1);
      }
      try (var rs = s.executeQuery("SELECT sqlite_version()")) {
        rs.next();
        version = rs.getString(1);
      }
    }
    // PRAGMA synchronous reads back as a number: 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA.
    int expected = switch (synchronous) {
      case "OFF" -> 0;
      case "NORMAL" -> 1;
      case "FULL" -> 2;
      case "EXTRA" -> 3;
      default -> throw new IllegalArgumentException("synchronous level " + synchronous);
    };
    if (!"wal".equalsIgnoreCase(mode) || level != expected) {
      throw new IllegalStateException("SQLite runs with journal_mode=" + mode + ", synchronous="
          + level + "; expected wal and " + expected + " (" + synchronous + ")");
    }
    return "journal_mode=" + mode + ", synchronous=" + level + " (" + synchronous
        + "), SQLite " + version;
  }

  /** The PRAGMA values read back from the connection, and SQLite's version. */
  String pragmas() {
    return pragmas;
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
