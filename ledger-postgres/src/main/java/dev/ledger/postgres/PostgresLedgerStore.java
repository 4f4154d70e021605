package dev.ledger.postgres;

import com.google.common.base.Preconditions;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.ledger.core.ImportResult;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerHead;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.RootIdCursor;
import dev.ledger.core.RootIdPage;
import dev.ledger.core.StateType;
import dev.ledger.core.spi.AbstractLedgerStore;
import dev.ledger.core.spi.CommitSignal;
import dev.ledger.core.spi.CommitWatch;
import dev.ledger.core.spi.PatchLog;
import dev.ledger.core.spi.PatchLogSource;
import java.io.InputStream;
import java.io.OutputStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/**
 * A {@link LedgerStore} on PostgreSQL, for orchestrators whose workers run on several hosts:
 * every store opened on the same database and schema, in any process on any host, sees the
 * same ledgers, with the same contract as the file store (revisions, command replay and
 * conflicts, gapless sequences, opaque cursors bound to their ledger, limits, export and
 * import in the same format).
 *
 * <p><b>Tables.</b> The store creates and migrates its tables in its schema when it opens
 * ({@link Schema} documents them). A commit is one transaction, sent as one statement in
 * autocommit mode (one round trip): the head row of the ledger is moved from the expected
 * revision by an {@code UPDATE ... WHERE revision = expected} (an
 * {@code INSERT ... ON CONFLICT DO NOTHING} for the first revision), so that under any number
 * of clients exactly one writer wins each revision; the commit, its events and its command id
 * are inserted in the same transaction. A commit on the revision this store last saw skips
 * reading the head first; its guard then also names the head row's generation, which a
 * ledger deleted and created again (by any process) does not share, so a stale memory of the
 * head writes nothing and the commit falls back to reading the head. Event sequences continue from the head row, never from
 * a database sequence, so they have no gaps. Reads are plain MVCC reads: they take no lock and
 * never wait for a writer. A writer waits for a concurrent writer of the same ledger at most
 * the lock timeout of its options ({@link dev.ledger.core.LockTimeoutException}).
 *
 * <p><b>Durability.</b> A commit is acknowledged once PostgreSQL committed its transaction;
 * what that means on disk is the server's {@code synchronous_commit} and replication setting,
 * not {@link LedgerOptions#durability()}. Database failures are {@link DatabaseException}s
 * that say whether they are {@linkplain DatabaseException#retryable() retryable}; a commit
 * whose connection broke after it was sent fails with
 * {@link DatabaseException#outcomeUnknown()}: retry it with the same command id, and it lands
 * exactly once (the retry replays it if it had landed).
 *
 * <p><b>Following.</b> Followers are woken by {@code LISTEN/NOTIFY}: a store holds one
 * listening connection, opened when its first follower opens, whatever the number of
 * followers; followers then read pages after their own cursor, so a dropped listening
 * connection is reopened and the followers resume with no loss and no duplicate.
 *
 * <p><b>Connections.</b> {@link #open(DataSource, String, LedgerOptions)} uses a data source the
 * caller owns and closes after closing the store; {@link #connect} opens a HikariCP pool that
 * the store owns and closes with itself. Each operation borrows one connection for its
 * duration; a store with followers keeps one more for listening. Thread-safe.
 */
public final class PostgresLedgerStore implements LedgerStore, PatchLogSource {
  /** The schema a store uses unless told otherwise. */
  public static final String DEFAULT_SCHEMA = "ledger";

  private final Ledgers shell;

  private PostgresLedgerStore(Tables tables) {
    this.shell = new Ledgers(tables);
  }

  /**
   * Opens a store in the default schema ({@value #DEFAULT_SCHEMA}) of the database
   * {@code dataSource} connects to, with default options.
   *
   * @param dataSource where connections come from; the caller keeps it and closes it after
   *     the store
   * @return the store, its tables created or migrated
   * @throws NullPointerException if {@code dataSource} is null
   * @throws DatabaseException if the database cannot be reached or the tables not created
   * @throws dev.ledger.core.LedgerException if the schema was written by a newer library
   */
  public static PostgresLedgerStore open(DataSource dataSource) {
    return open(dataSource, DEFAULT_SCHEMA, LedgerOptions.defaults());
  }

  /**
   * Opens a store in {@code schema} of the database {@code dataSource} connects to. Stores in
   * different schemas of one database are independent.
   *
   * @param dataSource where connections come from; the caller keeps it and closes it after
   *     the store (the store never closes it)
   * @param schema the schema of the tables: lower-case letters, digits, underscores, not
   *     starting with a digit, at most 48 characters; created if absent
   * @param options the options (clock, limits, lock timeout, update retries; durability is
   *     the server's, see above)
   * @return the store, its tables created or migrated
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code schema} is not a valid name
   * @throws DatabaseException if the database cannot be reached or the tables not created
   * @throws dev.ledger.core.LedgerException if the schema was written by a newer library
   */
  public static PostgresLedgerStore open(DataSource dataSource, String schema,
      LedgerOptions options) {
    Preconditions.checkNotNull(dataSource, "dataSource");
    Schema.checkName(schema);
    Preconditions.checkNotNull(options, "options");
    Schema.migrate(dataSource, schema);
    return new PostgresLedgerStore(new Tables(dataSource, null, schema, options));
  }

  /**
   * Opens a store over a HikariCP pool of its own, on the database {@code jdbcUrl} names
   * ({@code jdbc:postgresql://host:5432/db}). The store owns the pool: {@link #close()}
   * closes it.
   *
   * @param jdbcUrl the PostgreSQL JDBC URL
   * @param user the user, or null to take it from the URL
   * @param password the password, or null
   * @param schema the schema of the tables, as for {@link #open(DataSource, String,
   *     LedgerOptions)}
   * @param options the options
   * @return the store, its tables created or migrated
   * @throws NullPointerException if {@code jdbcUrl}, {@code schema} or {@code options} is null
   * @throws IllegalArgumentException if {@code jdbcUrl} is not a PostgreSQL JDBC URL or
   *     {@code schema} not a valid name
   * @throws DatabaseException if the database cannot be reached or the tables not created
   */
  public static PostgresLedgerStore connect(String jdbcUrl, String user, String password,
      String schema, LedgerOptions options) {
    Preconditions.checkNotNull(jdbcUrl, "jdbcUrl");
    Preconditions.checkArgument(jdbcUrl.startsWith("jdbc:postgresql:"),
        "not a PostgreSQL JDBC URL: '%s'", jdbcUrl);
    Schema.checkName(schema);
    Preconditions.checkNotNull(options, "options");
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl);
    config.setUsername(user);
    config.setPassword(password);
    config.setPoolName("ledger-postgres " + schema);
    config.setMaximumPoolSize(10);
    config.setMinimumIdle(1);
    HikariDataSource pool;
    try {
      pool = new HikariDataSource(config);
    } catch (RuntimeException e) {
      throw new DatabaseException("Opening a connection pool on " + redacted(jdbcUrl),
          e.getCause() instanceof SQLException s ? s : new SQLException(e.getMessage(), e),
          false);
    }
    try {
      Schema.migrate(pool, schema);
    } catch (RuntimeException e) {
      pool.close();
      throw e;
    }
    return new PostgresLedgerStore(new Tables(pool, pool, schema, options));
  }

  private static String redacted(String jdbcUrl) {
    int query = jdbcUrl.indexOf('?');
    return query < 0 ? jdbcUrl : jdbcUrl.substring(0, query);
  }

  @Override
  public <S> Ledger<S> ledger(String rootId, StateType<S> stateType) {
    return shell.ledger(rootId, stateType);
  }

  /**
   * {@inheritDoc}
   *
   * <p>On PostgreSQL a patch commit is one transaction, sent as one guarded statement that
   * moves the head row without writing the state; a checkpoint writes the state into the
   * head row. {@code Ledger} readers of the same root fold the patches after the head row's
   * state, so they see every revision. Serialization failures and deadlocks are retryable
   * {@link DatabaseException}s that wrote nothing, which the collection store's transaction
   * loop re-runs. Collections open on this store with
   * {@code PatchLogCollectionStore.on(store, schema)}.
   */
  @Override
  public PatchLog patchLog(String rootId) {
    return shell.patchLog(rootId);
  }

  /** The documents table's statistics keeper, for tests. */
  DocumentStatistics documentStatistics() {
    return shell.tables.documentStatistics();
  }

  /**
   * Creates an expression index on the documents table for each declared path, if absent
   * (see {@code DocumentTable}): the collection store on this store calls it when it opens
   * its schema. Safe when several processes open at once.
   *
   * @param indexes per collection, the dotted paths of its indexed fields
   * @throws NullPointerException if {@code indexes} is null
   * @throws DatabaseException if the indexes cannot be created
   */
  @Override
  public void declareDocumentIndexes(java.util.Map<String, java.util.List<String>> indexes) {
    java.util.Objects.requireNonNull(indexes, "indexes");
    shell.guarded(() -> {
      new DocumentTable(shell.tables).declare(indexes);
      return null;
    });
  }

  /**
   * {@inheritDoc}
   *
   * <p>On PostgreSQL: one query on the ledgers table, sorted by the "C" collation.
   */
  @Override
  public List<String> rootIds() {
    return shell.rootIds();
  }

  @Override
  public RootIdPage rootIds(RootIdCursor after, int limit) {
    return shell.rootIds(after, limit);
  }

  @Override
  public boolean exists(String rootId) {
    return shell.exists(rootId);
  }

  @Override
  public Optional<LedgerHead> head(String rootId) {
    return shell.head(rootId);
  }

  /**
   * {@inheritDoc}
   *
   * <p>On PostgreSQL: one transaction locks the ledger's head row (waiting up to the lock
   * timeout for a commit in flight) and deletes its head, commits, events and commands; a
   * reader sees the whole ledger or none.
   */
  @Override
  public boolean delete(String rootId) {
    return shell.delete(rootId);
  }

  /**
   * {@inheritDoc}
   *
   * <p>On PostgreSQL: read in one read-only repeatable-read transaction, a snapshot that no
   * writer waits for.
   */
  @Override
  public long export(String rootId, OutputStream out) {
    return shell.export(rootId, out);
  }

  /**
   * {@inheritDoc}
   *
   * <p>On PostgreSQL: the input is read and checked whole, then every row of the ledger is
   * inserted in one transaction, whose COMMIT is the commit point.
   */
  @Override
  public ImportResult importLedger(InputStream in) {
    return shell.importLedger(in);
  }

  @Override
  public LedgerOptions options() {
    return shell.options();
  }

  /**
   * Closes the store: waits for operations in flight, ends its followers, stops the listening
   * connection, and closes the pool if the store opened it ({@link #connect}); a data source
   * given to {@link #open(DataSource, String, LedgerOptions)} stays open. Idempotent.
   */
  @Override
  public void close() {
    shell.close();
  }

  /** The listener, for tests: null while no follower is open. */
  CommitListener listener() {
    synchronized (shell.tables) {
      return shell.tables.listener;
    }
  }

  /** Sets the longest wait of a follower between two reads, for tests. */
  void pollBoundNanos(long nanos) {
    shell.tables.pollBoundNanos = nanos;
  }

  @Override
  public String toString() {
    return shell.toString();
  }

  /** Where the tables are and how to reach them: shared by the store and its backends. */
  static final class Tables {
    private final DataSource dataSource;
    private final HikariDataSource ownedPool;
    private final String schema;
    private final LedgerOptions options;
    private final String ledgers;
    private final String commits;
    private final String events;
    private final String commands;
    private final CommitStatements sql;
    private final CommitNotifier notifier;
    private final DocumentStatistics documentStatistics;
    private Ledgers store;
    private CommitListener listener;
    /** Watches not yet closed; the listener runs while there is one. */
    private int watches;
    /** A follower reads again at least this often even without a notification. */
    volatile long pollBoundNanos = 10_000_000_000L;

    Tables(DataSource dataSource, HikariDataSource ownedPool, String schema,
        LedgerOptions options) {
      this.dataSource = dataSource;
      this.ownedPool = ownedPool;
      this.schema = schema;
      this.options = options;
      this.ledgers = schema + ".ledgers";
      this.commits = schema + ".commits";
      this.events = schema + ".events";
      this.commands = schema + ".commands";
      this.sql = CommitStatements.of(this);
      this.notifier = new CommitNotifier(dataSource, channel(), toString());
      this.documentStatistics = new DocumentStatistics(dataSource, schema + ".documents",
          toString());
    }

    /** The planner statistics of the documents table, refreshed after many rows. */
    DocumentStatistics documentStatistics() {
      return documentStatistics;
    }

    /** The SQL of patch commits, built by the first patch commit. */
    private volatile PostgresPatchLog.Statements patchSql;

    /** The SQL of this store's patch commits, built once. */
    PostgresPatchLog.Statements patchSql() {
      PostgresPatchLog.Statements built = patchSql;
      if (built == null) {
        synchronized (this) {
          if (patchSql == null) {
            patchSql = new PostgresPatchLog.Statements(this);
          }
          built = patchSql;
        }
      }
      return built;
    }

    /** Sends the notifications of this store's commits, once they committed. */
    CommitNotifier notifier() {
      return notifier;
    }

    CommitStatements sql() {
      return sql;
    }

    String ledgers() {
      return ledgers;
    }

    String commits() {
      return commits;
    }

    String events() {
      return events;
    }

    String commands() {
      return commands;
    }

    LedgerOptions options() {
      return options;
    }

    /** The notification channel of this schema's commits. */
    String channel() {
      return "ledger_" + schema;
    }

    Connection connect(String operation) {
      try {
        return dataSource.getConnection();
      } catch (SQLException e) {
        throw new DatabaseException(operation + ": no connection", e, false);
      }
    }

    /** Returns a connection in autocommit mode, as it was borrowed. */
    void release(Connection c, String operation) {
      try {
        try {
          if (!c.getAutoCommit()) {
            c.rollback();
            c.setAutoCommit(true);
          }
        } finally {
          c.close();
        }
      } catch (SQLException e) {
        // The operation's outcome is already decided; a broken connection is the pool's.
      }
    }

    /**
     * A watch on {@code ledger}, woken by this store's commits and by notifications. The
     * first open watch starts the listener; closing the last one stops it, so that a store
     * nobody follows holds no connection and no thread.
     */
    synchronized CommitWatch watch(PostgresLedger ledger) {
      if (watches++ == 0) {
        listener = new CommitListener(dataSource, channel(), store.toString(),
            root -> signalOf(root), this::allSignals);
      }
      CommitSignal signal = ledger.signal();
      return new CommitWatch() {
        private boolean closed;

        @Override
        public long version() {
          return signal.version();
        }

        @Override
        public void await(long seen, long timeoutNanos, BooleanSupplier stop)
            throws InterruptedException {
          signal.await(seen, Math.min(timeoutNanos, pollBoundNanos), stop);
        }

        @Override
        public void wake() {
          signal.wakeAll();
        }

        @Override
        public void close() {
          synchronized (Tables.this) {
            if (!closed) {
              closed = true;
              unwatch();
            }
          }
        }
      };
    }

    private synchronized void unwatch() {
      if (--watches == 0 && listener != null) {
        listener.stop();
        listener = null;
      }
    }

    private CommitSignal signalOf(String root) {
      PostgresLedger backend = store.handedOut(root);
      return backend == null ? null : backend.signal();
    }

    private Collection<CommitSignal> allSignals() {
      return store.all().stream().map(PostgresLedger::signal).toList();
    }

    synchronized void close() {
      notifier.stop();
      documentStatistics.close(java.time.Duration.ofSeconds(10));
      if (listener != null) {
        listener.stop();
        listener = null;
      }
      if (ownedPool != null) {
        ownedPool.close();
      }
    }

    @Override
    public String toString() {
      return "PostgreSQL schema '" + schema + "'";
    }
  }

  /** The shared store shell over the backends. */
  private static final class Ledgers extends AbstractLedgerStore<PostgresLedger> {
    private final Tables tables;

    Ledgers(Tables tables) {
      super(tables.options, "PostgreSQL store in schema '" + tables.schema + "'");
      this.tables = tables;
      tables.store = this;
    }

    private final ConcurrentHashMap<String, PostgresPatchLog> patchLogs =
        new ConcurrentHashMap<>();

    PatchLog patchLog(String rootId) {
      return guarded(() -> {
        PostgresLedger backend = backend(rootId);
        return patchLogs.computeIfAbsent(rootId,
            r -> new PostgresPatchLog(tables, this, backend));
      });
    }

    @Override
    protected PostgresLedger newBackend(String rootId) {
      return new PostgresLedger(tables, rootId);
    }

    @Override
    protected boolean deleteLedger(String rootId, PostgresLedger handedOut) {
      return (handedOut != null ? handedOut : newBackend(rootId)).delete();
    }

    /** The backend handed out for {@code root}, or null; a scan, as notifications are few. */
    PostgresLedger handedOut(String root) {
      for (PostgresLedger backend : backends()) {
        if (backend.rootId().equals(root)) {
          return backend;
        }
      }
      return null;
    }

    Collection<PostgresLedger> all() {
      return List.copyOf(backends());
    }

    @Override
    public List<String> rootIds() {
      return guarded(() -> rootIdsAfter("", Integer.MAX_VALUE));
    }

    @Override
    protected List<String> rootIdsAfter(String after, int max) {
      String operation = "Listing the ledgers of " + tables;
      Connection c = tables.connect(operation);
      try (PreparedStatement ps = c.prepareStatement("SELECT root_id FROM " + tables.ledgers()
          + " WHERE root_id > ? ORDER BY root_id LIMIT ?")) {
        ps.setString(1, after);
        ps.setLong(2, max);
        List<String> ids = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            ids.add(rs.getString(1));
          }
        }
        return ids;
      } catch (SQLException e) {
        throw new DatabaseException(operation, e, false);
      } finally {
        tables.release(c, operation);
      }
    }

    @Override
    public long export(String rootId, OutputStream out) {
      Preconditions.checkNotNull(rootId, "rootId");
      Preconditions.checkNotNull(out, "out");
      return guarded(() -> LedgerTransfer.export(tables, backend(rootId), out));
    }

    @Override
    public ImportResult importLedger(InputStream in) {
      Preconditions.checkNotNull(in, "in");
      return guarded(() -> LedgerTransfer.importLedger(tables, this::backend, in));
    }

    @Override
    protected void closeBackends(Collection<PostgresLedger> backends) {
      tables.close();
    }
  }
}
