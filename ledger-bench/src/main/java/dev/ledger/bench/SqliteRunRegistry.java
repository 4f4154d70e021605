package dev.ledger.bench;

import com.fasterxml.jackson.core.type.TypeReference;
import java.io.IOException;
import java.io.UncheckedIOException;
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
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The SQLite peer of the registry scenario: the reference run registry's schema (workspaces,
 * runs with a {@code revision} column, run events keyed by run and sequence, an index on
 * {@code (status, updated_at_ms)}, plus the indexes its lookups need: unique external run id,
 * lineage and attempt), WAL, {@code synchronous=FULL}. Its transition is the reference's: read
 * the run, check the lifecycle, a guarded {@code UPDATE ... WHERE id = ? AND revision = ?} and
 * the event {@code INSERT}, in one transaction. Its queries are the reference's, and map every
 * row they return to a record (request and command JSON parsed), as the registry returns
 * records.
 */
final class SqliteRunRegistry implements AutoCloseable {
  private static final Map<String, Set<String>> ALLOWED = Map.of(
      "starting", Set.of("running", "cancel_requested", "failed", "orphaned"),
      "running", Set.of("cancel_requested", "completed", "failed", "orphaned"),
      "cancel_requested", Set.of("canceling", "canceled", "completed", "failed", "orphaned"),
      "canceling", Set.of("canceled", "completed", "failed", "orphaned"));
  private static final Set<String> TERMINAL =
      Set.of("completed", "failed", "canceled", "orphaned");
  private static final String COLUMNS = "r.id, r.workspace_id, r.external_run_id,"
      + " r.first_run_id, r.attempt_number, r.binding, r.pipeline, r.workflow, r.status,"
      + " r.revision, r.plan_checksum, r.request_json, r.command_json, r.run_relative_path,"
      + " r.pid, r.started_at_ms, r.completed_at_ms, r.return_code, r.failure_summary,"
      + " r.cancel_requested_at_ms, r.created_at_ms, r.updated_at_ms, w.canonical_path";

  /** A run as the queries return it. */
  record Row(String id, String workspaceId, String externalRunId, String firstRunId,
      int attempt, String binding, String pipeline, String workflow, String status,
      long revision, String planChecksum, Map<String, Object> request, Map<String, Object> command,
      String runDir, Long pid, Long startedAt, Long completedAt, Integer returnCode,
      String failureSummary, Long cancelRequestedAt, long createdAt, long updatedAt) {}

  private final Connection connection;
  private final PreparedStatement current;
  private final PreparedStatement update;
  private final PreparedStatement event;
  private final PreparedStatement listByStatus;
  private final PreparedStatement lineageRoots;
  private final PreparedStatement lineageAttempts;
  private long clock;

  SqliteRunRegistry(Path file) throws SQLException, IOException {
    Files.createDirectories(file.getParent());
    connection = DriverManager.getConnection("jdbc:sqlite:" + file);
    try (Statement s = connection.createStatement()) {
      s.execute("PRAGMA journal_mode=WAL");
      s.execute("PRAGMA synchronous=FULL");
      s.execute("CREATE TABLE IF NOT EXISTS workspaces (id TEXT PRIMARY KEY,"
          + " canonical_path TEXT NOT NULL UNIQUE, display_name TEXT NOT NULL,"
          + " state TEXT NOT NULL, created_at_ms INTEGER NOT NULL,"
          + " last_seen_at_ms INTEGER NOT NULL)");
      s.execute("CREATE TABLE IF NOT EXISTS runs (id TEXT PRIMARY KEY,"
          + " workspace_id TEXT NOT NULL REFERENCES workspaces(id),"
          + " external_run_id TEXT NOT NULL UNIQUE, first_run_id TEXT NOT NULL,"
          + " attempt_number INTEGER NOT NULL, binding TEXT NOT NULL, pipeline TEXT NOT NULL,"
          + " workflow TEXT NOT NULL, status TEXT NOT NULL, revision INTEGER NOT NULL,"
          + " plan_checksum TEXT NOT NULL, request_json TEXT NOT NULL,"
          + " command_json TEXT NOT NULL, run_relative_path TEXT NOT NULL,"
          + " approved_plan_relative_path TEXT NOT NULL,"
          + " launch_log_relative_path TEXT NOT NULL, pid INTEGER, started_at_ms INTEGER,"
          + " completed_at_ms INTEGER, return_code INTEGER, failure_summary TEXT,"
          + " cancel_requested_at_ms INTEGER, created_at_ms INTEGER NOT NULL,"
          + " updated_at_ms INTEGER NOT NULL)");
      s.execute("CREATE INDEX IF NOT EXISTS runs_status_updated"
          + " ON runs (status, updated_at_ms)");
      s.execute("CREATE INDEX IF NOT EXISTS runs_lineage ON runs (first_run_id, attempt_number)");
      s.execute("CREATE TABLE IF NOT EXISTS run_events ("
          + " id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL REFERENCES runs(id),"
          + " sequence INTEGER NOT NULL, event_type TEXT NOT NULL, from_status TEXT,"
          + " to_status TEXT NOT NULL, actor_type TEXT NOT NULL, details_json TEXT NOT NULL,"
          + " created_at_ms INTEGER NOT NULL, UNIQUE (run_id, sequence))");
    }
    connection.setAutoCommit(false);
    current = connection.prepareStatement(
        "SELECT status, revision, started_at_ms FROM runs WHERE id = ?");
    update = connection.prepareStatement("UPDATE runs SET status = ?, revision = revision + 1,"
        + " updated_at_ms = ?, started_at_ms = COALESCE(started_at_ms, ?),"
        + " completed_at_ms = COALESCE(?, completed_at_ms),"
        + " cancel_requested_at_ms = COALESCE(?, cancel_requested_at_ms)"
        + " WHERE id = ? AND revision = ?");
    event = connection.prepareStatement("INSERT INTO run_events (run_id, sequence, event_type,"
        + " from_status, to_status, actor_type, details_json, created_at_ms)"
        + " VALUES (?, ?, ?, ?, ?, 'bench', ?, ?)");
    listByStatus = connection.prepareStatement("SELECT " + COLUMNS
        + " FROM runs r JOIN workspaces w ON w.id = r.workspace_id"
        + " WHERE r.status IN (?, ?) ORDER BY r.updated_at_ms DESC, r.id DESC LIMIT ?");
    lineageRoots = connection.prepareStatement("SELECT first_run_id,"
        + " MAX(updated_at_ms) AS latest FROM runs GROUP BY first_run_id"
        + " ORDER BY latest DESC, first_run_id DESC LIMIT ?");
    lineageAttempts = connection.prepareStatement("SELECT " + COLUMNS
        + " FROM runs r JOIN workspaces w ON w.id = r.workspace_id"
        + " WHERE r.first_run_id = ? ORDER BY r.attempt_number DESC LIMIT ?");
  }

  static String id(long i) {
    return UUID.nameUUIDFromBytes(RegistryWorkload.externalId(i).getBytes(StandardCharsets.UTF_8))
        .toString();
  }

  /**
   * Inserts the workspace and runs {@code 0..count-1} in their final states with the events
   * of their paths, in one transaction; timestamps ascend with {@code i}.
   */
  void populate(int count) throws SQLException {
    try (PreparedStatement ws = connection.prepareStatement(
        "INSERT INTO workspaces VALUES (?, ?, ?, 'available', 0, 0)")) {
      ws.setString(1, RegistryWorkload.WORKSPACE);
      ws.setString(2, "/bench/" + RegistryWorkload.WORKSPACE);
      ws.setString(3, RegistryWorkload.WORKSPACE);
      ws.executeUpdate();
    }
    RegistryWorkload.Placement[] placements = RegistryWorkload.placements(count);
    try (PreparedStatement run = connection.prepareStatement(insertRun())) {
      for (int i = 0; i < count; i++) {
        List<String> path = RegistryWorkload.path(i);
        String status = path.get(path.size() - 1);
        long t = ++clock;
        bindRun(run, i, RegistryWorkload.externalId(placements[i].firstRun()),
            placements[i].attempt(), status, 1 + path.size(), t);
        run.addBatch();
        String from = "starting";
        insertEvent(id(i), 1, "run_allocated", null, "starting", t);
        for (int k = 0; k < path.size(); k++) {
          insertEvent(id(i), k + 2, "status_changed", from, path.get(k), t);
          from = path.get(k);
        }
        if (i % 1000 == 999) {
          run.executeBatch();
          event.executeBatch();
        }
      }
      run.executeBatch();
      event.executeBatch();
    }
    connection.commit();
  }

  /** Allocates runs {@code from..from+count-1} in {@code starting}, one transaction; their ids. */
  List<String> allocate(long from, int count) throws SQLException {
    List<String> ids = new ArrayList<>(count);
    try (PreparedStatement run = connection.prepareStatement(insertRun())) {
      for (long i = from; i < from + count; i++) {
        long t = ++clock;
        bindRun(run, i, RegistryWorkload.externalId(i), 1, "starting", 1, t);
        run.addBatch();
        insertEvent(id(i), 1, "run_allocated", null, "starting", t);
        ids.add(id(i));
      }
      run.executeBatch();
      event.executeBatch();
    }
    connection.commit();
    return ids;
  }

  private static String insertRun() {
    return "INSERT INTO runs (id, workspace_id, external_run_id, first_run_id, attempt_number,"
        + " binding, pipeline, workflow, status, revision, plan_checksum, request_json,"
        + " command_json, run_relative_path, approved_plan_relative_path,"
        + " launch_log_relative_path, started_at_ms, completed_at_ms, created_at_ms,"
        + " updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, 'main', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
        + " ?)";
  }

  private static void bindRun(PreparedStatement run, long i, String firstRunId, int attempt,
      String status, long revision, long t) throws SQLException {
    String external = RegistryWorkload.externalId(i);
    run.setString(1, id(i));
    run.setString(2, RegistryWorkload.WORKSPACE);
    run.setString(3, external);
    run.setString(4, firstRunId);
    run.setInt(5, attempt);
    run.setString(6, RegistryWorkload.binding(i));
    run.setString(7, RegistryWorkload.pipeline(i));
    run.setString(8, status);
    run.setLong(9, revision);
    run.setString(10, RegistryWorkload.checksum(i));
    run.setString(11, json(RegistryWorkload.request(i)));
    run.setString(12, json(Map.of("schema_version", 1, "argv", RegistryWorkload.argv(i))));
    run.setString(13, "runs/" + external);
    run.setString(14, "runs/" + external + "/plan.json");
    run.setString(15, "runs/" + external + "/launch.log");
    run.setObject(16, "starting".equals(status) ? null : t);
    run.setObject(17, TERMINAL.contains(status) ? t : null);
    run.setLong(18, t);
    run.setLong(19, t);
  }

  private void insertEvent(String runId, long sequence, String type, String from, String to,
      long t) throws SQLException {
    event.setString(1, runId);
    event.setLong(2, sequence);
    event.setString(3, type);
    event.setString(4, from);
    event.setString(5, to);
    event.setString(6, "{}");
    event.setLong(7, t);
    event.addBatch();
  }

  /**
   * The reference's transition: read the run, check the lifecycle, the guarded update and the
   * event, committed together. Returns the new revision.
   */
  long transition(String id, String to) throws SQLException {
    String from;
    long revision;
    Long startedAt;
    current.setString(1, id);
    try (ResultSet rs = current.executeQuery()) {
      if (!rs.next()) {
        connection.rollback();
        throw new IllegalStateException("no run " + id);
      }
      from = rs.getString(1);
      revision = rs.getLong(2);
      startedAt = nullableLong(rs, 3);
    }
    if (!ALLOWED.getOrDefault(from, Set.of()).contains(to)) {
      connection.rollback();
      throw new IllegalStateException(from + " -> " + to);
    }
    long now = System.currentTimeMillis();
    update.setString(1, to);
    update.setLong(2, now);
    update.setObject(3, "running".equals(to) && startedAt == null ? now : null);
    update.setObject(4, TERMINAL.contains(to) ? now : null);
    update.setObject(5, "cancel_requested".equals(to) ? now : null);
    update.setString(6, id);
    update.setLong(7, revision);
    if (update.executeUpdate() != 1) {
      connection.rollback();
      throw new IllegalStateException("stale revision " + revision + " of " + id);
    }
    event.setString(1, id);
    event.setLong(2, revision + 1);
    event.setString(3, "status_changed");
    event.setString(4, from);
    event.setString(5, to);
    event.setString(6, json(Collections.singletonMap("return_code", null)));
    event.setLong(7, now);
    event.executeUpdate();
    connection.commit();
    return revision + 1;
  }

  /** The reference's {@code list_runs} by a status set of two, newest first. */
  List<Row> listRuns(List<String> statuses, int limit) throws SQLException {
    listByStatus.setString(1, statuses.get(0));
    listByStatus.setString(2, statuses.get(1));
    listByStatus.setInt(3, limit);
    List<Row> rows = rows(listByStatus);
    connection.commit();
    return rows;
  }

  /** The reference's {@code list_recent_lineages}: roots by latest update, then attempts. */
  List<Row> recentLineages(int lineages, int attempts) throws SQLException {
    List<String> roots = new ArrayList<>();
    lineageRoots.setInt(1, lineages);
    try (ResultSet rs = lineageRoots.executeQuery()) {
      while (rs.next()) {
        roots.add(rs.getString(1));
      }
    }
    List<Row> out = new ArrayList<>();
    for (String root : roots) {
      lineageAttempts.setString(1, root);
      lineageAttempts.setInt(2, attempts);
      List<Row> newestFirst = rows(lineageAttempts);
      Collections.reverse(newestFirst);
      out.addAll(newestFirst);
    }
    connection.commit();
    return out;
  }

  private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

  private static List<Row> rows(PreparedStatement query) throws SQLException {
    List<Row> rows = new ArrayList<>();
    try (ResultSet rs = query.executeQuery()) {
      while (rs.next()) {
        rows.add(new Row(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
            rs.getInt(5), rs.getString(6), rs.getString(7), rs.getString(8), rs.getString(9),
            rs.getLong(10), rs.getString(11), parse(rs.getString(12)), parse(rs.getString(13)),
            rs.getString(23) + "/" + rs.getString(14), nullableLong(rs, 15),
            nullableLong(rs, 16), nullableLong(rs, 17),
            rs.getObject(18) == null ? null : rs.getInt(18), rs.getString(19),
            nullableLong(rs, 20), rs.getLong(21), rs.getLong(22)));
      }
    }
    return rows;
  }

  private static Long nullableLong(ResultSet rs, int column) throws SQLException {
    long value = rs.getLong(column);
    return rs.wasNull() ? null : value;
  }

  private static Map<String, Object> parse(String json) {
    try {
      return Workload.JSON.readValue(json, MAP);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String json(Object value) {
    return new String(Workload.toJson(value), StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws SQLException {
    for (PreparedStatement p : List.of(current, update, event, listByStatus, lineageRoots,
        lineageAttempts)) {
      p.close();
    }
    connection.close();
  }
}
