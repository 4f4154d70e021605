package dev.ledger.bench;

import dev.ledger.core.LedgerOptions;
import dev.ledger.postgres.PostgresLedgerStore;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Scenario 11: single-ledger commits on PostgreSQL (a local server this scenario starts, with
 * its default settings: {@code fsync} and {@code synchronous_commit} on), the ledger store
 * against plain JDBC doing the same guarded {@code UPDATE} of the state row plus the
 * {@code INSERT} of the event in one transaction per commit.
 */
final class PostgresScenario {
  static final String NAME = "11. PostgreSQL single-ledger commits";
  private static final String LEDGER = "ledger (PostgresLedgerStore, own HikariCP pool)";
  private static final String JDBC = "plain JDBC: guarded UPDATE + INSERT, one transaction";

  private PostgresScenario() {}

  static void run(BenchConfig config, Report report) throws Exception {
    try (EmbeddedPostgres server = EmbeddedPostgres.builder().start()) {
      String url = "jdbc:postgresql://localhost:" + server.getPort() + "/postgres";
      Map<String, CommitTarget> targets = new LinkedHashMap<>();
      PostgresLedgerStore store = PostgresLedgerStore.connect(url, "postgres", null, "bench",
          LedgerOptions.defaults());
      targets.put(LEDGER, new StoreTarget(store, "run"));
      targets.put(JDBC, new PlainJdbc(url));
      Map<String, Stats> stats = new LinkedHashMap<>();
      for (String name : targets.keySet()) {
        stats.put(name, report.stats(NAME, name, "commits/s"));
      }
      try {
        for (int round = 0; round <= config.rounds(); round++) {
          List<Turns.Slice> slices = new ArrayList<>();
          targets.values().forEach(t -> slices.add(Turns.of(t)));
          double[] rates = Turns.rates(slices, config.roundMillis());
          if (round > 0) {
            int i = 0;
            for (Stats s : stats.values()) {
              s.add(rates[i++]);
            }
          }
        }
      } finally {
        for (CommitTarget t : targets.values()) {
          t.close();
        }
      }
      report.ratio(NAME, "ledger / plain JDBC", stats.get(LEDGER), stats.get(JDBC),
          Report.Goal.AT_LEAST, 0.9);
    }
  }

  /** The ledger through any store: the same commit as {@link LedgerTarget}. */
  private static final class StoreTarget implements CommitTarget {
    private final PostgresLedgerStore store;
    private final dev.ledger.core.Ledger<Workload.BenchState> ledger;
    private long revision;
    private long counter;

    StoreTarget(PostgresLedgerStore store, String rootId) {
      this.store = store;
      this.ledger = store.ledger(rootId, Workload.BenchState.class);
      this.revision = dev.ledger.core.Ledger.NO_REVISION;
    }

    @Override
    public void commit() {
      counter++;
      revision = ledger.commit(revision, Workload.state(counter), Workload.event(counter))
          .revision();
    }

    @Override
    public void close() {
      store.close();
    }
  }

  /** One connection, two prepared statements, one transaction per commit. */
  private static final class PlainJdbc implements CommitTarget {
    private final Connection connection;
    private final PreparedStatement update;
    private final PreparedStatement insert;
    private long revision;

    PlainJdbc(String url) throws SQLException {
      connection = DriverManager.getConnection(url, "postgres", null);
      try (Statement s = connection.createStatement()) {
        s.execute("CREATE SCHEMA IF NOT EXISTS plain");
        s.execute("CREATE TABLE plain.state (id int PRIMARY KEY, revision bigint NOT NULL,"
            + " body bytea NOT NULL)");
        s.execute("CREATE TABLE plain.events (seq bigint PRIMARY KEY, revision bigint NOT NULL,"
            + " type text NOT NULL, payload bytea NOT NULL)");
        s.execute("INSERT INTO plain.state VALUES (1, 0, '\\x7b7d')");
      }
      connection.setAutoCommit(false);
      update = connection.prepareStatement(
          "UPDATE plain.state SET revision = ?, body = ? WHERE id = 1 AND revision = ?");
      insert = connection.prepareStatement(
          "INSERT INTO plain.events (seq, revision, type, payload) VALUES (?, ?, ?, ?)");
    }

    @Override
    public void commit() throws SQLException {
      long next = revision + 1;
      update.setLong(1, next);
      update.setBytes(2, Workload.stateJson(next));
      update.setLong(3, revision);
      if (update.executeUpdate() != 1) {
        connection.rollback();
        throw new IllegalStateException("revision conflict at " + revision);
      }
      insert.setLong(1, next);
      insert.setLong(2, next);
      insert.setString(3, "task.done");
      insert.setBytes(4, Workload.toJson(Workload.eventPayload(next)));
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
}
