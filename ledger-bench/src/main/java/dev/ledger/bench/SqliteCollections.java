package dev.ledger.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The SQLite peer of the collection scenarios: WAL, {@code synchronous=FULL}, documents as
 * JSON text in a table keyed by id with an expression index on {@code $.group} (the field the
 * collection declares as indexed), and the queue as a table ordered by an autoincrement key.
 * Its transaction is the collection store's: update one document, enqueue one item, dequeue
 * the oldest, in one SQLite transaction.
 */
final class SqliteCollections implements AutoCloseable {
  private final Connection connection;
  private final PreparedStatement update;
  private final PreparedStatement enqueue;
  private final PreparedStatement oldest;
  private final PreparedStatement dequeue;
  private final PreparedStatement byGroup;
  private final PreparedStatement byWorker;

  SqliteCollections(Path file) throws SQLException, java.io.IOException {
    Files.createDirectories(file.getParent());
    connection = DriverManager.getConnection("jdbc:sqlite:" + file);
    try (Statement s = connection.createStatement()) {
      s.execute("PRAGMA journal_mode=WAL");
      s.execute("PRAGMA synchronous=FULL");
      s.execute("CREATE TABLE IF NOT EXISTS rollouts (id TEXT PRIMARY KEY, doc TEXT NOT NULL)");
      s.execute("CREATE INDEX IF NOT EXISTS rollouts_group"
          + " ON rollouts (json_extract(doc, '$.group'))");
      s.execute("CREATE TABLE IF NOT EXISTS queue (seq INTEGER PRIMARY KEY AUTOINCREMENT,"
          + " item TEXT NOT NULL)");
    }
    connection.setAutoCommit(false);
    update = connection.prepareStatement("UPDATE rollouts SET doc = ? WHERE id = ?");
    enqueue = connection.prepareStatement("INSERT INTO queue (item) VALUES (?)");
    oldest = connection.prepareStatement("SELECT seq, item FROM queue ORDER BY seq LIMIT 1");
    dequeue = connection.prepareStatement("DELETE FROM queue WHERE seq = ?");
    byGroup = connection.prepareStatement(
        "SELECT doc FROM rollouts WHERE json_extract(doc, '$.group') = ?");
    byWorker = connection.prepareStatement(
        "SELECT doc FROM rollouts WHERE json_extract(doc, '$.worker') = ?");
  }

  /** Inserts documents {@code 0..count-1} and {@code queued} queue items, in one transaction. */
  void populate(long count, int queued) throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement(
        "INSERT INTO rollouts (id, doc) VALUES (?, ?)")) {
      for (long i = 0; i < count; i++) {
        insert.setString(1, CollectionWorkload.id(i));
        insert.setString(2, json(CollectionWorkload.doc(i, 0)));
        insert.addBatch();
        if (i % 1000 == 999) {
          insert.executeBatch();
        }
      }
      insert.executeBatch();
    }
    for (int i = 0; i < queued; i++) {
      enqueue.setString(1, json(new CollectionWorkload.BenchItem(CollectionWorkload.id(i), i)));
      enqueue.executeUpdate();
    }
    connection.commit();
  }

  /** Update document {@code i} to attempt {@code attempt}, enqueue one item, dequeue one. */
  void transaction(long i, long attempt) throws SQLException {
    update.setString(1, json(CollectionWorkload.doc(i, attempt)));
    update.setString(2, CollectionWorkload.id(i));
    if (update.executeUpdate() != 1) {
      connection.rollback();
      throw new IllegalStateException("no document " + CollectionWorkload.id(i));
    }
    enqueue.setString(1, json(new CollectionWorkload.BenchItem(CollectionWorkload.id(i),
        attempt)));
    enqueue.executeUpdate();
    long seq;
    try (ResultSet rs = oldest.executeQuery()) {
      if (!rs.next()) {
        connection.rollback();
        throw new IllegalStateException("queue empty");
      }
      seq = rs.getLong(1);
      rs.getString(2);
    }
    dequeue.setLong(1, seq);
    dequeue.executeUpdate();
    connection.commit();
  }

  /** Documents come back as what a caller uses: mapped records, as the collection gives. */
  private static CollectionWorkload.BenchDoc parse(String json) {
    try {
      return Workload.JSON.readValue(json, CollectionWorkload.BenchDoc.class);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** The documents of one group, through the expression index; their count. */
  int queryGroup(String group) throws SQLException {
    return count(byGroup, group);
  }

  /** The documents of one worker, by scanning with {@code json_extract}; their count. */
  int scanWorker(String worker) throws SQLException {
    return count(byWorker, worker);
  }

  private int count(PreparedStatement query, String value) throws SQLException {
    query.setString(1, value);
    List<CollectionWorkload.BenchDoc> docs = new ArrayList<>();
    try (ResultSet rs = query.executeQuery()) {
      while (rs.next()) {
        docs.add(parse(rs.getString(1)));
      }
    }
    connection.commit();
    return docs.size();
  }

  private static String json(Object value) {
    return new String(Workload.toJson(value), StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws SQLException {
    for (PreparedStatement p : List.of(update, enqueue, oldest, dequeue, byGroup, byWorker)) {
      p.close();
    }
    connection.close();
  }
}
