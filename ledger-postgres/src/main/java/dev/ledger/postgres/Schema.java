package dev.ledger.postgres;

import com.google.common.base.Preconditions;
import dev.ledger.core.LedgerException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The tables of a {@link PostgresLedgerStore}, created and migrated when a store opens.
 *
 * <p>Every table lives in the store's schema ({@code ledger} unless the caller names another).
 * Version 6 (the documents tables of version 5 are described by {@code DocumentTable}):
 * <pre>
 * schema_version(version int PRIMARY KEY, applied_at timestamptz)   one row per migration applied
 *
 * ledgers(root_id text COLLATE "C" PRIMARY KEY,     the head row of each ledger
 *         revision bigint,                          latest revision, 1 for the first commit
 *         next_sequence bigint,                     the sequence the next event gets
 *         state_version int,                        state version of the latest state
 *         updated_at text,                          commit time, ISO-8601 as Instant.toString
 *         state bytea,                              the latest state, canonical JSON bytes, when
 *                                                   checkpoint_revision is null; else the state
 *                                                   as of checkpoint_revision (null before the
 *                                                   first checkpoint)
 *         generation bigint,                        from the sequence generations when the row
 *                                                   is inserted: new for a recreated ledger
 *         checkpoint_revision bigint,               null: state is the latest state; else the
 *                                                   revision state holds (0: none), the newer
 *                                                   commits being patch-log commits whose
 *                                                   patches fold onto it (version 3)
 *         journal_bytes bigint)                     patch and event payload bytes committed
 *                                                   through the patch log since state was
 *                                                   written (version 3)
 *
 * commits(root_id, revision,  PRIMARY KEY           one row per revision, 1, 2, 3 ... no gap
 *         committed_at text, first_sequence bigint, event_count int,
 *         record_format int,                        the journal record format (2; 1 if imported)
 *         command_id text, command_digest text,     as recorded, or null
 *         state_version int,
 *         state bytea, patch bytea)                 exactly one: the whole state, or the merge
 *                                                   patch (RFC 7386) from revision - 1
 *
 * events(root_id, sequence,  PRIMARY KEY            one row per event, sequences 1, 2, 3 ...
 *        revision bigint, type text,
 *        payload bytea,                             canonical JSON bytes
 *        operation_id text, command_id text,
 *        occurred_at text,                          null: its commit's committed_at (version 6)
 *        id text)                                   null: the id derived from root id and
 *                                                   sequence (version 6; see EventColumns)
 *
 * commands(root_id, command_id,  PRIMARY KEY        each public command id once per ledger
 *          digest text,                             the intent digest replays compare with
 *          revision bigint)                         the revision that recorded it
 *
 * artifact_snapshots(                               one row per frozen attempt, written by
 *         root_id text COLLATE "C",                 PostgresArtifactStore (version 4)
 *         attempt_id text,  PRIMARY KEY (root_id, attempt_id): first freeze wins
 *         snapshot_id text COLLATE "C",  UNIQUE (root_id, snapshot_id): get and list order
 *         sha256 text,                              digest of the content's canonical JSON
 *         frozen_at text,                           ISO-8601 as Instant.toString
 *         content bytea,                            the content's canonical JSON
 *         blobs text[])                             hex ids of the blobs it references, the
 *                                                   mark of garbage collection
 * </pre>
 *
 * <p>Invariants: a ledger's row exists once its first commit committed; its revision equals
 * the number of its commits rows and its next_sequence minus one the number of its events
 * rows; the four tables change together in one transaction per commit (the commit point is
 * that transaction's commit). Generations are unique among the rows of a schema and never
 * reused, so a row with the same root id and revision but another generation belongs to a
 * ledger deleted and created again. States and payloads are kept as the exact canonical JSON bytes
 * the core wrote, so that a load reads what the file store would, byte for byte; times are kept
 * as text for the same reason (nanoseconds, which {@code timestamptz} would round). Root ids
 * sort with the "C" collation, the order {@link String#compareTo} gives.
 *
 * <p>Migration: one transaction takes {@code pg_advisory_xact_lock} on a fixed key, creates
 * the schema and {@code schema_version} if absent, applies the missing versions in order and
 * records them; two processes opening at once apply each version once. A schema whose
 * recorded version is newer than this library's is refused.
 */
final class Schema {
  /** The advisory lock key every migration takes: "ledger" in ASCII. */
  static final long MIGRATION_LOCK = 0x6c6564676572L;
  /** The schema version this library writes and the newest it opens. */
  static final int VERSION = 6;

  private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_]{0,47}");

  private static final List<String> V1 = List.of(
      """
      CREATE TABLE %1$s.ledgers (
        root_id text COLLATE "C" PRIMARY KEY,
        revision bigint NOT NULL CHECK (revision >= 1),
        next_sequence bigint NOT NULL CHECK (next_sequence >= 1),
        state_version int NOT NULL,
        updated_at text NOT NULL,
        state bytea NOT NULL)""",
      """
      CREATE TABLE %1$s.commits (
        root_id text COLLATE "C" NOT NULL,
        revision bigint NOT NULL,
        committed_at text NOT NULL,
        first_sequence bigint NOT NULL,
        event_count int NOT NULL,
        record_format int NOT NULL,
        command_id text,
        command_digest text,
        state_version int NOT NULL,
        state bytea,
        patch bytea,
        PRIMARY KEY (root_id, revision),
        CHECK ((state IS NULL) <> (patch IS NULL)))""",
      """
      CREATE TABLE %1$s.events (
        root_id text COLLATE "C" NOT NULL,
        sequence bigint NOT NULL,
        revision bigint NOT NULL,
        type text NOT NULL,
        payload bytea NOT NULL,
        operation_id text,
        command_id text,
        occurred_at text NOT NULL,
        id text NOT NULL,
        PRIMARY KEY (root_id, sequence))""",
      """
      CREATE TABLE %1$s.commands (
        root_id text COLLATE "C" NOT NULL,
        command_id text NOT NULL,
        digest text NOT NULL,
        revision bigint NOT NULL,
        PRIMARY KEY (root_id, command_id))""");

  /**
   * Version 2: a generation per head row, drawn from a sequence when the row is inserted, so
   * that a ledger deleted and created again is told apart from the old one at the same
   * revision (commits guard on it with the revision).
   */
  private static final List<String> V2 = List.of(
      "CREATE SEQUENCE %1$s.generations",
      "ALTER TABLE %1$s.ledgers ADD COLUMN generation bigint",
      "UPDATE %1$s.ledgers SET generation = nextval('%1$s.generations')",
      "ALTER TABLE %1$s.ledgers ALTER COLUMN generation SET DEFAULT"
          + " nextval('%1$s.generations'), ALTER COLUMN generation SET NOT NULL");

  /**
   * Version 3: patch-log commits ({@link PostgresPatchLog}) move the head row without writing
   * the state, so the row says which revision its state holds and how many journal bytes
   * were committed since (the collection store's checkpoint policy reads it).
   */
  private static final List<String> V3 = List.of(
      "ALTER TABLE %1$s.ledgers ALTER COLUMN state DROP NOT NULL",
      "ALTER TABLE %1$s.ledgers ADD COLUMN checkpoint_revision bigint",
      "ALTER TABLE %1$s.ledgers ADD COLUMN journal_bytes bigint NOT NULL DEFAULT 0");

  /**
   * Version 4: attempt snapshots of {@link PostgresArtifactStore}: the primary key is the
   * first-write-wins rule of a freeze across hosts ({@code INSERT ... ON CONFLICT DO
   * NOTHING}), the unique snapshot id orders listings.
   */
  private static final List<String> ARTIFACT_SNAPSHOTS = List.of(
      """
      CREATE TABLE %1$s.artifact_snapshots (
        root_id text COLLATE "C" NOT NULL,
        attempt_id text COLLATE "C" NOT NULL,
        snapshot_id text COLLATE "C" NOT NULL,
        sha256 text NOT NULL,
        frozen_at text NOT NULL,
        content bytea NOT NULL,
        blobs text[] NOT NULL,
        PRIMARY KEY (root_id, attempt_id),
        UNIQUE (root_id, snapshot_id))""");

  /**
   * Version 6: an event's time and id are stored only when they cannot be derived from its
   * commit's time and from its root id and sequence ({@link EventColumns}); rows written
   * before keep theirs. Dropping a NOT NULL rewrites nothing.
   */
  private static final List<String> V6 = List.of(
      "ALTER TABLE %1$s.events ALTER COLUMN occurred_at DROP NOT NULL,"
          + " ALTER COLUMN id DROP NOT NULL");

  private static final List<List<String>> MIGRATIONS = List.of(V1, V2, V3, ARTIFACT_SNAPSHOTS,
      DocumentTable.MIGRATION, V6);

  private Schema() {}

  /**
   * Checks a schema name: lower-case letters, digits and underscores, not starting with a
   * digit, at most 48 characters (so that the notification channel fits PostgreSQL's 63).
   */
  static String checkName(String schema) {
    Preconditions.checkNotNull(schema, "schema");
    Preconditions.checkArgument(NAME.matcher(schema).matches(),
        "schema must match %s: '%s'", NAME.pattern(), schema);
    return schema;
  }

  /** Creates or migrates the tables of {@code schema} to {@link #VERSION}. */
  static void migrate(DataSource dataSource, String schema) {
    migrate(dataSource, schema, VERSION);
  }

  /**
   * Creates or migrates the tables of {@code schema} to version {@code target} (at most
   * {@link #VERSION}); tests make schemas of older versions with it.
   */
  static void migrate(DataSource dataSource, String schema, int target) {
    Preconditions.checkArgument(target >= 1 && target <= VERSION, "target %s", target);
    try (Connection c = dataSource.getConnection()) {
      boolean autoCommit = c.getAutoCommit();
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        s.execute("SELECT pg_advisory_xact_lock(" + MIGRATION_LOCK + ")");
        s.execute("CREATE SCHEMA IF NOT EXISTS " + schema);
        s.execute("CREATE TABLE IF NOT EXISTS " + schema + ".schema_version ("
            + "version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())");
        int current = 0;
        try (ResultSet rs = s.executeQuery("SELECT coalesce(max(version), 0) FROM " + schema
            + ".schema_version")) {
          rs.next();
          current = rs.getInt(1);
        }
        if (current > VERSION) {
          throw new LedgerException("Schema '" + schema + "' is at version " + current
              + ", newer than the " + VERSION + " this library reads; upgrade the library");
        }
        for (int v = current + 1; v <= target; v++) {
          for (String ddl : MIGRATIONS.get(v - 1)) {
            s.execute(String.format(ddl, schema));
          }
          s.execute("INSERT INTO " + schema + ".schema_version(version) VALUES (" + v + ")");
        }
        c.commit();
      } catch (SQLException | RuntimeException e) {
        rollbackQuietly(c, e);
        throw e;
      } finally {
        c.setAutoCommit(autoCommit);
      }
    } catch (SQLException e) {
      throw new DatabaseException("Migrating schema '" + schema + "'", e, false);
    }
  }

  static void rollbackQuietly(Connection c, Exception failure) {
    try {
      c.rollback();
    } catch (SQLException e) {
      failure.addSuppressed(e);
    }
  }
}
