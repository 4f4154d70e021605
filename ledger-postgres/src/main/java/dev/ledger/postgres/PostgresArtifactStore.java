package dev.ledger.postgres;

import com.google.common.base.Preconditions;
import dev.ledger.artifacts.ArtifactConflictException;
import dev.ledger.artifacts.ArtifactNotFoundException;
import dev.ledger.artifacts.ArtifactOptions;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.ArtifactStore;
import dev.ledger.artifacts.ArtifactVerification;
import dev.ledger.artifacts.AttemptSubmission;
import dev.ledger.artifacts.BlobCollection;
import dev.ledger.artifacts.BlobNotFoundException;
import dev.ledger.artifacts.BlobVerification;
import dev.ledger.artifacts.CleanupMode;
import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.OrphanCleanup;
import dev.ledger.artifacts.ReadOnlyArtifactStoreException;
import dev.ledger.artifacts.SnapshotContent;
import dev.ledger.artifacts.SnapshotCursor;
import dev.ledger.artifacts.SnapshotDamage;
import dev.ledger.artifacts.SnapshotPage;
import dev.ledger.artifacts.fs.FileArtifactStore;
import dev.ledger.artifacts.fs.FileBlobStore;
import dev.ledger.artifacts.internal.ArtifactMeters;
import dev.ledger.core.Durability;
import dev.ledger.core.LockTimeoutException;
import dev.ledger.core.StoreClosedException;
import dev.ledger.core.internal.io.Identifiers;
import dev.ledger.core.internal.json.LedgerJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link ArtifactStore} for workers on many hosts: snapshots in PostgreSQL, blobs as
 * content-addressed files on storage every host mounts (NFS, CephFS, a cloud file share).
 *
 * <p><b>Where things are.</b> Blobs live in the blob directory of a {@link FileArtifactStore}
 * under the shared base directory ({@code <base>/artifacts/blobs/sha256/..}, written by its
 * {@link FileBlobStore}: a temp file hashed as it is written, then hard-linked to its content
 * path, so that the first writer of a blob wins and equal ids mean equal bytes whichever host
 * wrote them). Its {@code attempts} directory stays empty: snapshots are rows of the
 * {@code artifact_snapshots} table in the store's schema ({@link Schema} documents it), one per
 * attempt. <b>Never open the shared base with a {@code FileArtifactStore} to collect its
 * garbage</b>: it would find no snapshot file and remove every blob past the grace period.
 * One blob directory serves one schema.
 *
 * <p><b>Freeze, across hosts.</b> The submission's files are put as blobs first, outside any
 * lock. A row for the attempt, if there is one, decides at once: same digest, it is returned;
 * otherwise {@link ArtifactConflictException}. Else one transaction takes the collection lock
 * shared (a transaction-level advisory lock of PostgreSQL, keyed by the schema), checks that
 * every referenced blob is in the shared directory, and inserts the row with
 * {@code INSERT ... ON CONFLICT DO NOTHING}: the primary key {@code (root_id, attempt_id)} lets
 * exactly one freeze of an attempt in, whichever process or host it runs on (a racing insert
 * waits for the first one's transaction, then does nothing). A freeze that inserted nothing
 * reads the winner's row and decides as above. The transaction's {@code COMMIT} is the commit
 * point. A freeze whose connection broke may be simply repeated with the same submission: it
 * returns the snapshot if the first attempt landed.
 *
 * <p><b>Garbage collection and the race with other hosts.</b> {@link #collectGarbage} takes the
 * collection lock exclusively for its whole run, marks every blob the table references, then
 * sweeps the shared directory under the blob store's lock file (see
 * {@code SharedBlobCollector}). A freeze on any host checks its blobs and inserts its row
 * under the same lock held shared, so it lands either before the mark (its blobs are seen as
 * referenced) or after the sweep (it finds a removed blob missing and fails with
 * {@link BlobNotFoundException}, freezing nothing): never a snapshot whose blob is gone. What
 * the lock cannot cover is a blob put but not yet referenced, on another host, between its put
 * and its freeze: the grace period covers it. A put stamps the blob's modification time with
 * the putting host's store clock (renewing an existing blob), and the sweep spares every blob
 * younger than the grace period, so put-then-freeze is safe when the freeze follows the put
 * within the grace period <em>less the clock skew between the hosts and the shared file
 * system's attribute caching</em> (NFS caches attributes up to a minute by default): choose a
 * grace of hours, not seconds. A put that renews an old unreferenced blob while a sweep runs is
 * excluded by the lock file, where the shared file system honours {@code fcntl} locks across
 * hosts (NFSv4 and CephFS are built to; an NFS mount with {@code nolock} is not); where it
 * does not, such a blob may still be removed just after it was renewed, and the freeze that
 * follows fails with {@link BlobNotFoundException} (put again and retry) - it never freezes a
 * snapshot without its blob.
 *
 * <p><b>Durability.</b> A snapshot is durable when its transaction committed (the server's
 * {@code synchronous_commit} and replication decide what that means); a blob is forced to the
 * shared storage before it is published when {@link ArtifactOptions#durability()} is
 * {@link Durability#SYNC}, as far as the shared file system honours {@code fsync} (NFS does on
 * COMMIT). The options' lock timeout bounds both the wait for the collection lock (then
 * {@link LockTimeoutException}) and for the blob lock file; the clock stamps snapshots and
 * blobs and measures their ages.
 *
 * <p><b>Meters.</b> With {@link ArtifactOptions#withMeterRegistry} the store records what the
 * file artifact store records, under the same names and tags: {@code artifacts.blob.put}
 * and {@code artifacts.blob.put.size} (by the shared file blob store), {@code artifacts.freeze}
 * by outcome, {@code artifacts.gc} by mode, {@code artifacts.gc.removed} and
 * {@code artifacts.gc.removed.size}. Without a registry no Micrometer class is loaded.
 *
 * <p><b>Read-only.</b> {@link #openReadOnly} reads the same tables and blobs and refuses every
 * write with {@link ReadOnlyArtifactStoreException}; it creates and migrates nothing.
 *
 * <p>Thread-safe; any number of stores, in any processes on any hosts, may share one schema
 * and blob directory. Each operation borrows one connection from the data source for its
 * duration; the data source is the caller's, and {@link #close()} leaves it open.
 */
public final class PostgresArtifactStore implements ArtifactStore {
  private static final Logger LOG = LoggerFactory.getLogger(PostgresArtifactStore.class);

  private final DataSource dataSource;
  private final String schema;
  private final ArtifactOptions options;
  private final FileArtifactStore files;
  private final boolean readOnly;
  private final SnapshotRows rows;
  private final long collectionLock;
  /** What the store records; {@link ArtifactMeters#NONE} without a meter registry. */
  private final ArtifactMeters meters;
  private volatile boolean closed;

  private PostgresArtifactStore(DataSource dataSource, String schema, ArtifactOptions options,
      FileArtifactStore files, boolean readOnly) {
    this.dataSource = dataSource;
    this.schema = schema;
    this.options = options;
    this.files = files;
    this.readOnly = readOnly;
    this.rows = new SnapshotRows(schema);
    this.collectionLock = collectionLockKey(schema);
    this.meters = ArtifactMeters.of(options.meterRegistry());
  }

  /**
   * Opens a store in the default schema ({@value PostgresLedgerStore#DEFAULT_SCHEMA}) with
   * default options.
   *
   * @param dataSource where connections come from; the caller closes it after the store
   * @param sharedBase the base directory, on storage every host mounts, whose
   *     {@code artifacts} directory holds the blobs; created if missing
   * @return the store, its table created or migrated
   * @throws NullPointerException if an argument is null
   * @throws DatabaseException if the database cannot be reached or the table not created
   * @throws dev.ledger.core.LedgerIOException if the blob directory cannot be created
   * @throws dev.ledger.core.LedgerException if the schema was written by a newer library
   */
  public static PostgresArtifactStore open(DataSource dataSource, Path sharedBase) {
    return open(dataSource, PostgresLedgerStore.DEFAULT_SCHEMA, sharedBase,
        ArtifactOptions.defaults());
  }

  /**
   * Opens a store in {@code schema}, creating or migrating its tables (the same schema may hold
   * a {@link PostgresLedgerStore}), over the blobs under {@code sharedBase}.
   *
   * @param dataSource where connections come from; the caller closes it after the store
   * @param schema the schema of the tables: lower-case letters, digits, underscores, not
   *     starting with a digit, at most 48 characters; created if absent
   * @param sharedBase the base directory, on storage every host mounts, whose
   *     {@code artifacts} directory holds the blobs; created if missing. Every store of the
   *     schema must name the same directory, and no other schema may use it
   * @param options durability of blob puts, lock timeout and clock
   * @return the store
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code schema} is not a valid name
   * @throws DatabaseException if the database cannot be reached or the table not created
   * @throws dev.ledger.core.LedgerIOException if the blob directory cannot be created
   * @throws dev.ledger.core.LedgerException if the schema was written by a newer library
   */
  public static PostgresArtifactStore open(DataSource dataSource, String schema, Path sharedBase,
      ArtifactOptions options) {
    Preconditions.checkNotNull(dataSource, "dataSource");
    Schema.checkName(schema);
    Preconditions.checkNotNull(sharedBase, "sharedBase");
    Preconditions.checkNotNull(options, "options");
    Schema.migrate(dataSource, schema);
    FileArtifactStore files = FileArtifactStore.open(sharedBase, options);
    return new PostgresArtifactStore(dataSource, schema, options, files, false);
  }

  /**
   * Opens an existing store for reading only: reads, listings, orphans and blob verification
   * work; every write (puts, freezes, cleanups, collections, dry runs included) throws
   * {@link ReadOnlyArtifactStoreException}. Creates, migrates and locks nothing.
   *
   * @param dataSource where connections come from; the caller closes it after the store
   * @param schema the schema a writable store was opened in
   * @param sharedBase the shared base directory a writable store was opened on
   * @return the read-only store, whose options are the defaults
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code schema} is not a valid name
   * @throws dev.ledger.core.LedgerIOException if {@code sharedBase} holds no artifact store
   */
  public static PostgresArtifactStore openReadOnly(DataSource dataSource, String schema,
      Path sharedBase) {
    Preconditions.checkNotNull(dataSource, "dataSource");
    Schema.checkName(schema);
    Preconditions.checkNotNull(sharedBase, "sharedBase");
    FileArtifactStore files = FileArtifactStore.openReadOnly(sharedBase);
    return new PostgresArtifactStore(dataSource, schema, ArtifactOptions.defaults(), files,
        true);
  }

  /** The advisory lock key of a schema's collection lock: "artf" and 32 bits of its name. */
  private static long collectionLockKey(String schema) {
    return (0x61727466L << 32)
        | Long.parseLong(LedgerJson.sha256Hex("dev.ledger.artifacts/" + schema).substring(0, 8),
            16);
  }

  @Override
  public ArtifactOptions options() {
    return options;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here: the file blob store of the shared directory, which lives and closes with this
   * store.
   */
  @Override
  public FileBlobStore blobs() {
    checkOpen();
    return files.blobs();
  }

  /**
   * The schema of the snapshot table.
   *
   * @return the schema name
   */
  public String schema() {
    return schema;
  }

  /**
   * The shared {@code artifacts} directory whose {@code blobs} this store reads and writes.
   *
   * @return its absolute path
   */
  public Path directory() {
    return files.directory();
  }

  /**
   * Whether this store was opened with {@link #openReadOnly}.
   *
   * @return true if every write is refused
   */
  public boolean readOnly() {
    return readOnly;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here: the row's primary key lets one freeze of an attempt in across every host; the
   * store lock is the collection lock, held shared (see the class comment).
   */
  @Override
  public ArtifactSnapshot freeze(String rootId, String attemptId, AttemptSubmission submission) {
    return meters.recordFreeze(() -> freezeOnce(rootId, attemptId, submission));
  }

  private ArtifactMeters.Frozen freezeOnce(String rootId, String attemptId, AttemptSubmission submission) {
    checkOpen();
    Identifiers.check("root id", rootId);
    ArtifactSnapshot.idFor(attemptId);
    Preconditions.checkNotNull(submission, "submission");
    checkWritable("freeze of attempt '" + attemptId + "' of root '" + rootId + "'");
    SnapshotContent content = SnapshotContent.normalize(submission, files.blobs());
    String digest = content.sha256();
    String operation = "Freezing attempt '" + attemptId + "' of root '" + rootId + "' in "
        + this;
    Connection c = connect(operation);
    try {
      ArtifactSnapshot existing = rows.byAttempt(c, rootId, attemptId);
      if (existing != null) {
        return new ArtifactMeters.Frozen(sameOrConflict(existing, digest), false);
      }
      ArtifactSnapshot snapshot = ArtifactSnapshot.of(rootId, attemptId, content,
          options.clock().instant());
      c.setAutoCommit(false);
      lockCollection(c, true);
      for (ContentId id : content.blobs()) {
        if (!files.blobs().exists(id)) {
          throw new BlobNotFoundException(id, files.blobs().path(id));
        }
      }
      while (true) {
        if (rows.insertIfAbsent(c, snapshot)) {
          commit(c, operation);
          return new ArtifactMeters.Frozen(snapshot, true);
        }
        // Each statement sees what committed before it began: the winner, unless an orphan
        // cleanup removed it since, and then the insert is tried again.
        existing = rows.byAttempt(c, rootId, attemptId);
        if (existing != null) {
          c.commit();
          return new ArtifactMeters.Frozen(sameOrConflict(existing, digest), false);
        }
      }
    } catch (SQLException e) {
      throw new DatabaseException(operation, e, false);
    } finally {
      release(c);
    }
  }

  private static void commit(Connection c, String operation) {
    try {
      c.commit();
    } catch (SQLException e) {
      // Sent, and no answer: the row may or may not be in. A repeated freeze decides.
      throw new DatabaseException(operation, e, true);
    }
  }

  private static ArtifactSnapshot sameOrConflict(ArtifactSnapshot existing, String digest) {
    if (existing.sha256().equals(digest)) {
      return existing;
    }
    throw new ArtifactConflictException(existing.rootId(), existing.attemptId(),
        existing.sha256(), digest);
  }

  @Override
  public ArtifactSnapshot get(String rootId, String snapshotId) {
    checkOpen();
    Identifiers.check("root id", rootId);
    ArtifactSnapshot.checkId(snapshotId);
    ArtifactSnapshot snapshot = read("Reading snapshot " + snapshotId + " of root '" + rootId
        + "'", c -> rows.bySnapshotId(c, rootId, snapshotId));
    if (snapshot == null) {
      throw new ArtifactNotFoundException(rootId, snapshotId);
    }
    return snapshot;
  }

  @Override
  public Optional<ArtifactSnapshot> getForAttempt(String rootId, String attemptId) {
    checkOpen();
    Identifiers.check("root id", rootId);
    ArtifactSnapshot.idFor(attemptId);
    return Optional.ofNullable(read("Reading the snapshot of attempt '" + attemptId
        + "' of root '" + rootId + "'", c -> rows.byAttempt(c, rootId, attemptId)));
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here: one indexed query per page; a snapshot frozen or removed between pages appears or
   * not by its place in the order, as on files.
   */
  @Override
  public SnapshotPage list(String rootId, SnapshotCursor cursor, int limit) {
    checkOpen();
    Identifiers.check("root id", rootId);
    Preconditions.checkNotNull(cursor, "cursor");
    Preconditions.checkArgument(limit >= 1 && limit <= MAX_PAGE_SIZE,
        "limit must be between 1 and %s, got %s", MAX_PAGE_SIZE, limit);
    String after = cursor.lastSnapshotId(rootId).orElse(null);
    List<ArtifactSnapshot> found = read("Listing the snapshots of root '" + rootId + "'",
        c -> rows.page(c, rootId, after, limit + 1));
    boolean more = found.size() > limit;
    return SnapshotPage.of(rootId, cursor, more ? found.subList(0, limit) : found, more);
  }

  @Override
  public List<String> rootIds() {
    checkOpen();
    return read("Listing the roots", rows::rootIds);
  }

  @Override
  public List<ArtifactSnapshot> listOrphans(String rootId, Set<String> knownAttemptIds) {
    checkOpen();
    Identifiers.check("root id", rootId);
    Preconditions.checkNotNull(knownAttemptIds, "knownAttemptIds");
    return read("Listing the orphans of root '" + rootId + "'",
        c -> rows.ofRoot(c, rootId, false)).stream()
        .filter(s -> !knownAttemptIds.contains(s.attemptId())).toList();
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here: one transaction locks the root's rows ({@code SELECT ... FOR UPDATE}, so that
   * cleanups of one root do not interleave), reads and checks them all, and deletes the
   * removable ones; a damaged row stops it before anything is deleted.
   */
  @Override
  public OrphanCleanup cleanupOrphans(String rootId, Set<String> knownAttemptIds,
      Duration minAge, CleanupMode mode) {
    checkOpen();
    Identifiers.check("root id", rootId);
    Preconditions.checkNotNull(knownAttemptIds, "knownAttemptIds");
    Preconditions.checkNotNull(minAge, "minAge");
    Preconditions.checkArgument(!minAge.isNegative(), "minAge must be zero or positive: %s",
        minAge);
    Preconditions.checkNotNull(mode, "mode");
    checkWritable("orphan cleanup (" + mode + ") of root '" + rootId + "'");
    String operation = "Cleaning the orphans of root '" + rootId + "' in " + this;
    Connection c = connect(operation);
    try {
      c.setAutoCommit(false);
      lockTimeout(c);
      Instant now = options.clock().instant();
      List<String> remove = new ArrayList<>();
      List<String> tooYoung = new ArrayList<>();
      for (ArtifactSnapshot s : rows.ofRoot(c, rootId, true)) {
        if (knownAttemptIds.contains(s.attemptId())) {
          continue;
        }
        if (Duration.between(s.frozenAt(), now).compareTo(minAge) >= 0) {
          remove.add(s.snapshotId());
        } else {
          tooYoung.add(s.snapshotId());
        }
      }
      if (mode == CleanupMode.DELETE && !remove.isEmpty()) {
        rows.delete(c, rootId, remove);
      }
      c.commit();
      LOG.info("{} {} orphan snapshots of root '{}' ({} younger than {} kept) in {}",
          mode == CleanupMode.DRY_RUN ? "Would remove" : "Removed", remove.size(), rootId,
          tooYoung.size(), minAge, this);
      return new OrphanCleanup(remove, tooYoung, mode);
    } catch (SQLException e) {
      throw lockTimeoutOr(e, "rows of root '" + rootId + "'", operation);
    } finally {
      release(c);
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here: marks from the snapshot table and sweeps the shared blob directory, under the
   * collection lock (exclusive) and the blob lock file; see the class comment for why a freeze
   * or put on another host is safe.
   */
  @Override
  public BlobCollection collectGarbage(Duration grace, CleanupMode mode) {
    BlobCollection result = collector(() -> { }).collect(checkGrace(grace), checkMode(mode));
    meters.collected(mode, result);
    return result;
  }

  /**
   * Verifies the whole store as {@link FileArtifactStore#verify()} verifies files: every blob
   * of the shared directory re-hashed against its name ({@link FileBlobStore#verify()}), then
   * every row of the snapshot table, in root and snapshot id order, checked: its content
   * parses, its digest is its content's, its snapshot id is its attempt's, its {@code blobs}
   * column (the mark of garbage collection) lists exactly the blobs its content references,
   * and every one of them is present on the shared mount. Reads only and takes no lock, so it
   * works on a read-only store and beside writers on every host; a row removed while it is
   * checked (orphan cleanup) is not reported for its missing blobs. Rows are read in pages,
   * each in its own statement, so memory does not grow with the table.
   *
   * <p>A damaged row is reported as a {@link SnapshotDamage} whose path names the row, not a
   * file: {@code <schema>.artifact_snapshots/<root id>/<snapshot id>} (the root and snapshot
   * id as the row holds them), and whose detail says what is wrong, with the digests or blob
   * ids involved.
   *
   * @return what was found; {@link ArtifactVerification#sound()} if nothing is damaged
   * @throws StoreClosedException if the store is closed
   * @throws DatabaseException if the table cannot be read
   * @throws dev.ledger.core.LedgerIOException if the blob directory cannot be listed
   */
  public ArtifactVerification verify() {
    checkOpen();
    BlobVerification blobVerification = files.blobs().verify();
    List<SnapshotDamage> damaged = new ArrayList<>();
    long checked = 0;
    SnapshotRows.Key after = null;
    while (true) {
      SnapshotRows.Key from = after;
      List<SnapshotRows.Checked> page = read("Verifying the snapshot rows of " + this,
          c -> rows.verifyPage(c, from, VERIFY_PAGE));
      for (SnapshotRows.Checked row : page) {
        checked++;
        Path where = rows.where(row.key());
        if (row.damage() != null) {
          damaged.add(new SnapshotDamage(where, row.key().rootId(), null, row.damage()));
          continue;
        }
        ArtifactSnapshot snapshot = row.snapshot();
        if (!new HashSet<>(row.blobColumn()).equals(
            new HashSet<>(SnapshotRows.blobColumnOf(snapshot)))) {
          damaged.add(new SnapshotDamage(where, row.key().rootId(), null, "its blobs column "
              + row.blobColumn() + " is not the blobs its content references "
              + SnapshotRows.blobColumnOf(snapshot) + ": garbage collection would mark the"
              + " wrong blobs"));
        }
        for (ContentId blob : snapshot.content().blobs()) {
          Path file = files.blobs().path(blob);
          if (!Files.exists(file) && stillThere(snapshot)) {
            damaged.add(new SnapshotDamage(where, row.key().rootId(), blob, "references blob "
                + blob + ", which the shared directory does not hold (" + file + ")"));
          }
        }
      }
      if (page.size() < VERIFY_PAGE) {
        break;
      }
      after = page.get(page.size() - 1).key();
    }
    return new ArtifactVerification(blobVerification, checked, damaged);
  }

  /** Rows per statement when {@link #verify()} reads the snapshot table. */
  private static final int VERIFY_PAGE = 500;

  /** Whether the row of {@code snapshot} is still in the table (not cleaned up meanwhile). */
  private boolean stillThere(ArtifactSnapshot snapshot) {
    return read("Reading the snapshot of attempt '" + snapshot.attemptId() + "'",
        c -> rows.exists(c, snapshot.rootId(), snapshot.snapshotId()));
  }

  private Duration checkGrace(Duration grace) {
    checkOpen();
    Preconditions.checkNotNull(grace, "grace");
    Preconditions.checkArgument(!grace.isNegative(), "grace must be zero or positive: %s",
        grace);
    return grace;
  }

  private CleanupMode checkMode(CleanupMode mode) {
    Preconditions.checkNotNull(mode, "mode");
    checkWritable("garbage collection (" + mode + ")");
    return mode;
  }

  /** A collector that runs {@code afterMark} between mark and sweep (tests use the hook). */
  SharedBlobCollector collector(Runnable afterMark) {
    checkOpen();
    return new SharedBlobCollector(this, afterMark);
  }

  /**
   * Takes the collection lock in the transaction of {@code c}: shared for a freeze, exclusive
   * for a collection; waits up to the lock timeout.
   *
   * @throws LockTimeoutException if it is not had in time
   */
  void lockCollection(Connection c, boolean shared) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT set_config('lock_timeout', ?, true),"
        + (shared ? " pg_advisory_xact_lock_shared(?)" : " pg_advisory_xact_lock(?)"))) {
      ps.setString(1, lockTimeoutSetting());
      ps.setLong(2, collectionLock);
      ps.executeQuery().close();
    } catch (SQLException e) {
      throw lockTimeoutOr(e, "the artifact collection lock of schema '" + schema + "'",
          "Taking the artifact collection lock in " + this);
    }
  }

  private void lockTimeout(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT set_config('lock_timeout', ?, true)")) {
      ps.setString(1, lockTimeoutSetting());
      ps.executeQuery().close();
    }
  }

  /** {@code lock_timeout} 0 means "wait forever"; a zero timeout here means "do not wait". */
  private String lockTimeoutSetting() {
    return Math.max(1, options.lockTimeout().toMillis()) + "ms";
  }

  private RuntimeException lockTimeoutOr(SQLException e, String what, String operation) {
    if ("55P03".equals(e.getSQLState())) {
      LockTimeoutException timeout = new LockTimeoutException("PostgreSQL: " + what,
          options.lockTimeout());
      timeout.initCause(e);
      return timeout;
    }
    return new DatabaseException(operation, e, false);
  }

  /** A read on one connection in autocommit mode. */
  private <T> T read(String operation, Query<T> query) {
    Connection c = connect(operation);
    try {
      return query.run(c);
    } catch (SQLException e) {
      throw new DatabaseException(operation, e, false);
    } finally {
      release(c);
    }
  }

  /** A query on a borrowed connection. */
  private interface Query<T> {
    T run(Connection c) throws SQLException;
  }

  Connection connect(String operation) {
    try {
      return dataSource.getConnection();
    } catch (SQLException e) {
      throw new DatabaseException(operation + ": no connection", e, false);
    }
  }

  /** Gives a connection back, rolled back and in autocommit mode. */
  void release(Connection c) {
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
      // The operation's outcome is decided; a broken connection is the pool's to drop.
    }
  }

  SnapshotRows rows() {
    return rows;
  }

  /** The shared {@code blobs/sha256} directory. */
  Path blobDirectory() {
    return files.directory().resolve("blobs").resolve("sha256");
  }

  /** Where puts write their temp files. */
  Path tempDirectory() {
    return files.directory().resolve("tmp");
  }

  /** The blob store's lock file, which every put holds while it links and stamps a blob. */
  Path blobLockFile() {
    return files.directory().resolve(".lock");
  }

  boolean sync() {
    return options.durability() == Durability.SYNC;
  }

  private void checkOpen() {
    if (closed) {
      throw new StoreClosedException(toString());
    }
  }

  private void checkWritable(String operation) {
    if (readOnly) {
      throw new ReadOnlyArtifactStoreException(toString(), operation);
    }
  }

  /**
   * Closes the store and its blob store; later calls throw {@link StoreClosedException}.
   * Idempotent. The data source stays open.
   */
  @Override
  public void close() {
    closed = true;
    files.close();
  }

  /**
   * Describes the store for logs.
   *
   * @return {@code PostgresArtifactStore[schema '<schema>', blobs <directory>]}, with
   *     {@code read-only} if it is
   */
  @Override
  public String toString() {
    return "PostgresArtifactStore[" + (readOnly ? "read-only " : "") + "schema '" + schema
        + "', blobs " + files.directory() + "]";
  }
}
