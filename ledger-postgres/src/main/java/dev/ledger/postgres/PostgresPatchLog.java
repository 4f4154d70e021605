package dev.ledger.postgres;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.common.base.Preconditions;
import dev.ledger.core.CommandConflictException;
import dev.ledger.core.CommitResult;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.LimitExceededException;
import dev.ledger.core.LockTimeoutException;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.internal.journal.CommitRecord;
import dev.ledger.core.internal.journal.JournalLine;
import dev.ledger.core.internal.json.LedgerJson;
import dev.ledger.core.spi.AbstractLedgerStore;
import dev.ledger.core.spi.DocumentQuery;
import dev.ledger.core.spi.DocumentRow;
import dev.ledger.core.spi.LoggedCommit;
import dev.ledger.core.spi.PatchLog;
import dev.ledger.core.spi.PatchRequest;
import dev.ledger.core.spi.PendingCommit;
import dev.ledger.core.spi.StoredState;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link PatchLog} of one ledger on PostgreSQL: the path the collection store commits
 * through, whose cost is the patch, not the state.
 *
 * <p><b>A patch commit</b> is one PostgreSQL transaction, sent as one statement in autocommit
 * mode (one round trip): it moves the head row from the expected revision
 * ({@code UPDATE ... WHERE revision = expected}, or {@code INSERT ... ON CONFLICT DO NOTHING}
 * for revision 1) without writing the state, and only if that took the row inserts the
 * commit row (its {@code patch} column set, {@code state} null), its events and its command
 * id; the notification for followers is sent once it committed ({@link CommitNotifier}).
 * Exactly one writer wins each revision; a command id already recorded fails the command's unique key, which rolls the whole
 * statement back. A statement that wrote nothing is then explained by one read: the command
 * is replayed (same digest) or refused ({@link CommandConflictException}), or the revision was
 * taken ({@link RevisionConflictException}). A batch ({@link #commitPatches}) is the same
 * statements in one explicit transaction.
 *
 * <p><b>The head row lags.</b> A patch commit leaves the row's {@code state} as it was and
 * records in {@code checkpoint_revision} the revision that state holds (0 when none); a
 * {@link #checkpoint} writes the state of the newest revision and clears it. Readers through
 * {@code Ledger} fold the patches after it ({@link HeadState}), so they see every revision.
 * The row also counts the journal bytes since its state ({@code journal_bytes}): the encoded
 * length of each patch commit's journal record, as the file store counts them.
 *
 * <p><b>Bound to one ledger.</b> A ledger deleted and created again (by any store, on any
 * host) can reach the revision a caller's view holds, with other contents; a patch built on
 * the old view must not land in it, nor a checkpoint folded from the old commits. So the log
 * binds itself to the head row's generation (a number the row gets when its ledger is
 * created, never reused) when it reads the ledger from its start ({@link #checkpoint()}, or
 * {@link #commitsAfter} from revision 0: a cold open) or writes its first commit, and guards
 * every commit and checkpoint by it as well as by the revision. A commit to another
 * generation writes nothing and is refused with the {@link RevisionConflictException} the
 * file store gives a writer whose ledger was deleted under it (its actual revision may equal
 * the expected one); {@code commitsAfter} a revision of a replaced ledger is refused the same
 * way. The caller opens its view afresh, which binds the log to the new ledger.
 *
 * <p><b>Failures.</b> Database failures are {@link DatabaseException}s: a serialization
 * failure or deadlock (SQLSTATE 40001, 40P01) is retryable and wrote nothing; a commit whose
 * connection broke after it was sent has an unknown outcome, and its retry under the same
 * command id lands exactly once. Thread-safe; holds no connection between calls.
 */
final class PostgresPatchLog implements PatchLog {
  private static final Logger LOG = LoggerFactory.getLogger(PostgresPatchLog.class);
  /** Commits per query when {@link #commitsAfter} pages through the journal. */
  private static final int PAGE = 256;

  private final PostgresLedgerStore.Tables tables;
  private final AbstractLedgerStore<?> store;
  private final PostgresLedger ledger;
  private final String root;
  /** The documents table (schema version 5) the collection store's commits keep in step. */
  private final DocumentTable documents;
  /**
   * The journal bytes since the checkpoint as of this process's last commit or checkpoint,
   * or -1 before either: a lower bound when other processes commit too.
   */
  private volatile long journalBytes = -1;
  /**
   * The next sequence after a revision, as this process last saw it (its own commit, or the
   * last commit a catch-up read), or null: spares a commit reading the head row first. The
   * guarded statement also checks it, so a stale one writes nothing.
   */
  private volatile Hint hint;
  /**
   * The generation of the ledger the caller's view was read from (see the class comment), or
   * 0 before this log read or wrote the ledger: what every later commit and checkpoint is
   * guarded by, so that nothing built on a ledger that was deleted (and perhaps created again)
   * elsewhere lands in the new one.
   */
  private volatile long generation;

  /** The head row's next sequence and generation at a revision. */
  private record Hint(long revision, long nextSequence, long generation) {}

  PostgresPatchLog(PostgresLedgerStore.Tables tables, AbstractLedgerStore<?> store,
      PostgresLedger ledger) {
    this.tables = tables;
    this.store = store;
    this.ledger = ledger;
    this.root = ledger.rootId();
    this.documents = new DocumentTable(tables);
  }

  /**
   * The SQL of patch commits in one schema, built once per store (the driver keys its
   * server-prepared statements by text): the write of revision 1 and of a later revision,
   * without and with the documents, for each {@link EventColumns.Shape}, without and with a
   * command id (see {@link CommitStatements} for why a variant names only what it writes).
   */
  static final class Statements {
    /** Indexed by {@link #index}. */
    private final List<String> writes;

    Statements(PostgresLedgerStore.Tables tables) {
      String first = "INSERT INTO " + tables.ledgers() + " (revision,"
          + " next_sequence, state_version, updated_at, journal_bytes, root_id, state,"
          + " checkpoint_revision) VALUES (?, ?, ?, ?, ?, ?, NULL, 0)"
          + " ON CONFLICT (root_id) DO NOTHING RETURNING root_id, journal_bytes, generation";
      String next = "UPDATE " + tables.ledgers() + " SET revision = ?,"
          + " next_sequence = ?, state_version = ?, updated_at = ?,"
          + " journal_bytes = CASE WHEN checkpoint_revision IS NULL THEN 0 ELSE journal_bytes"
          + " END + ?, checkpoint_revision = coalesce(checkpoint_revision, revision)"
          + " WHERE root_id = ? AND revision = ? AND next_sequence = ? AND generation = ?"
          + " RETURNING root_id, journal_bytes, generation";
      DocumentTable documents = new DocumentTable(tables);
      String[] all = new String[8 * EventColumns.Shape.values().length];
      for (boolean withDocuments : new boolean[] {false, true}) {
        for (boolean isFirst : new boolean[] {false, true}) {
          for (EventColumns.Shape shape : EventColumns.Shape.values()) {
            for (boolean command : new boolean[] {false, true}) {
              all[index(withDocuments, isFirst, shape, command)] = PostgresPatchLog.write(
                  tables, isFirst ? first : next, shape, command,
                  withDocuments ? documents.commitCtes(isFirst) : "");
            }
          }
        }
      }
      this.writes = List.of(all);
    }

    private static int index(boolean withDocuments, boolean first, EventColumns.Shape shape,
        boolean command) {
      int shapes = EventColumns.Shape.values().length;
      return (((withDocuments ? 2 : 0) + (first ? 1 : 0)) * shapes + shape.ordinal()) * 2
          + (command ? 1 : 0);
    }

    /**
     * The write of revision 1 ({@code first}) or a later one, for events of {@code shape},
     * with or without the documents and a command id.
     */
    String write(boolean withDocuments, boolean first, EventColumns.Shape shape,
        boolean command) {
      return writes.get(index(withDocuments, first, shape, command));
    }
  }

  /**
   * Two statements in one implicit transaction: the lock timeout, then the head's move and,
   * only if it took the row, the commit row, the events ({@link EventColumns#insertCte}), with
   * {@code command} the command ({@link CommitStatements#commandCte}) and the documents.
   * Returns the row's journal bytes and generation if it won, no row otherwise.
   */
  private static String write(PostgresLedgerStore.Tables t, String head,
      EventColumns.Shape shape, boolean command, String documents) {
    List<String> ctes = new ArrayList<>();
    ctes.add(" head AS (" + head + ")");
    ctes.add(" commit_row AS (INSERT INTO " + t.commits() + " (root_id, revision, committed_at,"
        + " first_sequence, event_count, record_format, command_id, command_digest,"
        + " state_version, state, patch) SELECT root_id, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?"
        + " FROM head)");
    if (shape != EventColumns.Shape.NONE) {
      ctes.add(EventColumns.insertCte(t, shape));
    }
    if (command) {
      ctes.add(CommitStatements.commandCte(t));
    }
    if (!documents.isEmpty()) {
      ctes.add(documents.substring(0, documents.length() - 1));
    }
    return "SELECT set_config('lock_timeout', ?, true); WITH" + String.join(",", ctes)
        + " SELECT head.journal_bytes, head.generation FROM head";
  }

  @Override
  public String rootId() {
    return root;
  }

  @Override
  public Optional<StoredState> checkpoint() {
    return store.guarded(() -> ledger.query("Reading the checkpoint of ledger '" + root + "'",
        c -> {
          try (PreparedStatement ps = c.prepareStatement("SELECT l.state, m.revision,"
              + " m.committed_at, m.state_version, l.generation FROM " + tables.ledgers()
              + " l JOIN "
              + tables.commits() + " m ON m.root_id = l.root_id"
              + " AND m.revision = coalesce(l.checkpoint_revision, l.revision)"
              + " WHERE l.root_id = ? AND l.state IS NOT NULL")) {
            ps.setString(1, root);
            try (ResultSet rs = ps.executeQuery()) {
              if (!rs.next()) {
                return Optional.empty();
              }
              generation = rs.getLong(5); // a cold open starts here: its view is of this ledger
              return Optional.of(new StoredState(json(rs.getBytes(1), "checkpoint"),
                  rs.getLong(2), Instant.parse(rs.getString(3)), rs.getInt(4)));
            }
          }
        }));
  }

  @Override
  public Stream<LoggedCommit> commitsAfter(long revision) {
    Preconditions.checkArgument(revision >= 0, "revision must be >= 0: %s", revision);
    return Paged.after(revision, PAGE, last -> store.guarded(() -> ledger.query(
        "Reading the commits of ledger '" + root + "' after revision " + last,
        c -> page(c, last))), LoggedCommit::revision);
  }

  /**
   * Up to {@link #PAGE} commits after {@code after}, with their events, in one snapshot. The
   * page from revision 0 binds this log to the ledger it reads (a cold open without a
   * checkpoint); a later page checks that the ledger is still the one bound.
   *
   * @throws RevisionConflictException if the ledger was deleted, or deleted and created
   *     again, since this log was bound to it: the caller's view is of a ledger that no longer
   *     exists, and must be read afresh from {@link #checkpoint()}
   */
  private List<LoggedCommit> page(Connection c, long after) throws SQLException {
    if (c.getAutoCommit() && nothingAfter(c, after)) {
      return List.of();
    }
    boolean autoCommit = c.getAutoCommit();
    int isolation = c.getTransactionIsolation();
    c.setAutoCommit(false);
    c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
    try {
      long[] head = headRow(c);
      long rowRevision = head[0];
      long rowGeneration = head[1];
      long bound = generation;
      if (after == 0) {
        generation = rowGeneration;
      } else if (bound != 0 && bound != rowGeneration) {
        throw new RevisionConflictException(root, after, rowRevision);
      }
      record Row(long revision, Instant committedAt, int stateVersion, byte[] state,
          byte[] patch, String commandId, int eventCount, long firstSequence) {}
      List<Row> rows = new ArrayList<>();
      try (PreparedStatement ps = c.prepareStatement("SELECT revision, committed_at,"
          + " state_version, state, patch, command_id, event_count, first_sequence FROM "
          + tables.commits()
          + " WHERE root_id = ? AND revision > ? ORDER BY revision LIMIT ?")) {
        ps.setString(1, root);
        ps.setLong(2, after);
        ps.setInt(3, PAGE);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            rows.add(new Row(rs.getLong(1), Instant.parse(rs.getString(2)), rs.getInt(3),
                rs.getBytes(4), rs.getBytes(5), rs.getString(6), rs.getInt(7), rs.getLong(8)));
          }
        }
      }
      List<Event> events = rows.isEmpty() || rows.stream().allMatch(r -> r.eventCount() == 0)
          ? List.of() : eventsOf(c, after, rows.get(rows.size() - 1).revision());
      c.commit();
      List<LoggedCommit> out = new ArrayList<>(rows.size());
      int e = 0;
      long expected = after + 1;
      for (Row row : rows) {
        if (row.revision() != expected) {
          throw HeadState.damaged(root, tables, "commit " + expected + " is missing");
        }
        expected++;
        List<Event> own = new ArrayList<>(row.eventCount());
        while (e < events.size() && events.get(e).revision() == row.revision()) {
          own.add(events.get(e++));
        }
        if (own.size() != row.eventCount()) {
          throw HeadState.damaged(root, tables, "commit " + row.revision() + " has "
              + own.size() + " event rows, its commit row says " + row.eventCount());
        }
        out.add(new LoggedCommit(row.revision(), row.committedAt(), row.stateVersion(),
            row.state() == null ? null : json(row.state(), "state of revision "
                + row.revision()),
            row.patch() == null ? null : json(row.patch(), "patch of revision "
                + row.revision()),
            own, row.commandId()));
      }
      if (!rows.isEmpty()) {
        Row newest = rows.get(rows.size() - 1);
        hint = new Hint(newest.revision(), newest.firstSequence() + newest.eventCount(),
            rowGeneration);
      }
      return out;
    } finally {
      c.rollback();
      c.setTransactionIsolation(isolation);
      c.setAutoCommit(autoCommit);
    }
  }

  /**
   * Whether the head row says there is no commit after {@code after} in the ledger this log is
   * bound to: one statement, where a page costs a transaction of its own (setting its isolation,
   * its queries, its commit, the isolation back: five round trips). A writer catching up before
   * each commit, as the collection store does, mostly finds nothing new.
   */
  private boolean nothingAfter(Connection c, long after) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT revision, generation FROM "
        + tables.ledgers() + " WHERE root_id = ?")) {
      ps.setString(1, root);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return false; // absent: the page says whether that is news (a delete) or not
        }
        long bound = generation;
        return after > 0 && rs.getLong(1) == after && (bound == 0 || bound == rs.getLong(2));
      }
    }
  }

  /** The events of the commits in {@code (after, through]}, in sequence order. */
  private List<Event> eventsOf(Connection c, long after, long through) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT e.sequence, e.revision, e.type,"
        + " e.payload, e.operation_id, e.command_id, " + EventColumns.occurredAt(tables) + ", e.id"
        + " FROM " + tables.events() + " e WHERE e.root_id = ? AND e.revision > ?"
        + " AND e.revision <= ? ORDER BY e.sequence")) {
      ps.setString(1, root);
      ps.setLong(2, after);
      ps.setLong(3, through);
      try (ResultSet rs = ps.executeQuery()) {
        List<Event> out = new ArrayList<>();
        while (rs.next()) {
          long sequence = rs.getLong(1);
          out.add(new Event(EventColumns.id(root, sequence, rs.getString(8)), root, sequence,
              rs.getLong(2), rs.getString(3), EventColumns.time(root, sequence, rs.getString(7)),
              json(rs.getBytes(4), "payload"), rs.getString(6), rs.getString(5)));
        }
        return out;
      }
    }
  }

  @Override
  public CommitResult commitPatch(PatchRequest request) {
    Preconditions.checkNotNull(request, "request");
    return store.guarded(() -> commitAll(List.of(request), true, null).get(0));
  }

  /**
   * Commits one patch with the documents it leaves (see {@link DocumentTable}): the rows and
   * the documents mark change in the same guarded statement as the head row. Rows that
   * cannot be stored (a U+0000 in a string) are left out, and the mark with them, so the
   * table goes stale rather than wrong.
   */
  @Override
  public PendingCommit appendPatch(PatchRequest request, List<DocumentRow> rows) {
    Preconditions.checkNotNull(request, "request");
    Preconditions.checkNotNull(rows, "rows");
    DocumentTable.Rows columns = DocumentTable.rows(rows);
    CommitResult result = store.guarded(() -> commitAll(List.of(request), true, columns)
        .get(0));
    if (columns != null) {
      tables.documentStatistics().wrote(columns.size());
    }
    return PendingCommit.durable(result);
  }

  /** Queries of this ledger's documents answered as SQL so far (not declined). */
  long documentQueriesAnswered() {
    return documents.answered.sum();
  }

  /** The plan of a document query's page statement; for tests. */
  List<String> explainDocuments(long revision, DocumentQuery query) {
    return ledger.query("Explaining a query", c -> documents.explain(c, root, revision,
        query));
  }

  @Override
  public boolean keepsDocuments() {
    return true;
  }

  @Override
  public Optional<DocumentQuery.Page> queryDocuments(long revision, DocumentQuery query) {
    Preconditions.checkNotNull(query, "query");
    return store.guarded(() -> ledger.query("Querying collection '" + query.collection()
        + "' of ledger '" + root + "' at revision " + revision,
        c -> documents.query(c, root, revision, query)));
  }

  @Override
  public boolean rebuildDocuments(long revision, Supplier<List<DocumentRow>> rows) {
    Preconditions.checkNotNull(rows, "rows");
    return store.guarded(() -> ledger.query("Rebuilding the documents of ledger '" + root
        + "' at revision " + revision, c -> documents.rebuild(c, root, revision, rows)));
  }

  @Override
  public List<CommitResult> commitPatches(List<PatchRequest> batch) {
    Preconditions.checkNotNull(batch, "batch");
    Preconditions.checkArgument(!batch.isEmpty(), "a batch needs at least one request");
    Set<String> commands = new HashSet<>();
    for (int i = 0; i < batch.size(); i++) {
      PatchRequest request = Preconditions.checkNotNull(batch.get(i), "request %s is null", i);
      Preconditions.checkArgument(i == 0 || request.expectedRevision()
          == batch.get(i - 1).expectedRevision() + 1,
          "request %s expects revision %s, not the one after request %s's (%s)", i,
          request.expectedRevision(), i - 1, batch.get(0).expectedRevision() + i);
      Preconditions.checkArgument(request.publicCommandId() == null
          || commands.add(request.publicCommandId()),
          "command %s appears twice in one batch", request.publicCommandId());
    }
    return store.guarded(() -> commitAll(batch, false, null));
  }

  /**
   * Writes {@code batch}: one request in autocommit mode (one round trip), several in one
   * explicit transaction. When a statement wrote nothing, explains why (and, for a single
   * request, replays a recorded command).
   *
   * @param single true for {@link #commitPatch}: a recorded command with the same digest is
   *     replayed rather than refused
   * @param rows the documents of a single request, or null
   */
  private List<CommitResult> commitAll(List<PatchRequest> batch, boolean single,
      DocumentTable.Rows rows) {
    String operation = "Patch commit to ledger '" + root + "'";
    Instant now = tables.options().clock().instant();
    Connection c = tables.connect(operation);
    boolean sent = false;
    try {
      boolean explicit = batch.size() > 1;
      c.setAutoCommit(!explicit);
      for (int attempt = 0; ; attempt++) {
        long revision = batch.get(0).expectedRevision();
        Hint known = attempt == 0 ? hint : null;
        Hint head = revision == 0 ? new Hint(0, 1, 0)
            : known != null && known.revision() == revision ? known
            : headAt(c, revision);
        boolean won = head != null;
        long nextSequence = won ? head.nextSequence() : 0;
        // The ledger the caller's view is of, once this log read it; else the row's as read.
        long bound = generation;
        long guard = bound != 0 ? bound : won ? head.generation() : 0;
        List<CommitRecord> records = new ArrayList<>(batch.size());
        long bytes = -1;
        long rowGeneration = 0;
        for (int i = 0; won && i < batch.size(); i++) {
          PatchRequest request = batch.get(i);
          CommitRecord record = record(request, revision, nextSequence, now);
          int length = JournalLine.encode(record).length;
          long max = JournalLine.maxLineBytes(tables.options());
          if (length > max) {
            throw new LimitExceededException(root, "commit record", max, length);
          }
          sent = !explicit;
          long[] after = write(c, record, request, length, guard, rows);
          sent = false;
          if (after == null) {
            won = false;
          } else {
            bytes = after[0];
            rowGeneration = after[1];
            guard = rowGeneration; // the next request of a batch moves the same row
            records.add(record);
            revision = record.revision();
            nextSequence = record.nextSequence();
          }
        }
        if (!won) {
          if (explicit) {
            c.rollback();
          }
          if (known != null && known.revision() == batch.get(0).expectedRevision()) {
            continue; // the hint may have been stale: read the head row and try once more
          }
          return refused(c, batch, single, bound);
        }
        if (explicit) {
          sent = true;
          c.commit();
          sent = false;
        }
        journalBytes = bytes;
        generation = rowGeneration;
        CommitRecord newest = records.get(records.size() - 1);
        hint = new Hint(newest.revision(), newest.nextSequence(), rowGeneration);
        ledger.signal().fire();
        tables.notifier().committed(root);
        List<CommitResult> results = new ArrayList<>(records.size());
        for (CommitRecord record : records) {
          results.add(record.result(ledger.cursorAfter(record.lastSequence(),
              record.revision()), false));
        }
        return List.copyOf(results);
      }
    } catch (SQLException e) {
      if ("55P03".equals(e.getSQLState())) {
        throw new LockTimeoutException("PostgreSQL row of ledger '" + root + "'",
            tables.options().lockTimeout());
      }
      if ("23505".equals(e.getSQLState())) {
        // A command id recorded already (ours or a racing writer's): nothing was written.
        return refused(c, batch, single, generation);
      }
      throw new DatabaseException(operation, e, sent && !PostgresLedger.refusedBeforeCommit(e));
    } finally {
      tables.release(c, operation);
    }
  }

  /**
   * The next sequence and generation of the head row if it is at {@code revision}, or null
   * (then the write cannot win and the caller explains why). Only a batch's first request
   * after revision 0 needs it: the head row does not hold it in a place the guarded statement
   * could use.
   */
  private Hint headAt(Connection c, long revision) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT next_sequence, generation FROM "
        + tables.ledgers() + " WHERE root_id = ? AND revision = ?")) {
      ps.setString(1, root);
      ps.setLong(2, revision);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? new Hint(revision, rs.getLong(1), rs.getLong(2)) : null;
      }
    }
  }

  /**
   * Why a write that won nothing was refused, read after it was rolled back: a recorded
   * command (replayed for a single request with the same digest, refused otherwise), else
   * the revision taken by another writer, or a ledger that is not the one this log was bound
   * to (deleted, or deleted and created again: a revision conflict, as the file store gives
   * a writer whose ledger was deleted under it, whose actual revision may then equal the
   * expected one).
   *
   * @param bound the generation the write was guarded by as bound to this log, or 0
   */
  private List<CommitResult> refused(Connection c, List<PatchRequest> batch, boolean single,
      long bound) {
    try {
      if (!c.getAutoCommit()) {
        c.rollback();
        c.setAutoCommit(true);
      }
      for (PatchRequest request : batch) {
        if (request.publicCommandId() == null) {
          continue;
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT digest, revision FROM "
            + tables.commands() + " WHERE root_id = ? AND command_id = ?")) {
          ps.setString(1, root);
          ps.setString(2, request.publicCommandId());
          try (ResultSet rs = ps.executeQuery()) {
            if (rs.next()) {
              String digest = rs.getString(1);
              if (single && digest.equals(request.commandDigest())) {
                return List.of(ledger.command(request.publicCommandId()).orElseThrow(() ->
                    HeadState.damaged(root, tables, "command " + request.publicCommandId()
                        + " vanished")));
              }
              throw new CommandConflictException(root, request.publicCommandId(),
                  rs.getLong(2), digest, request.commandDigest());
            }
          }
        }
      }
      long[] head = headRow(c);
      long actual = head[0];
      long rowGeneration = head[1];
      RevisionConflictException conflict = new RevisionConflictException(root,
          batch.get(0).expectedRevision(), actual);
      if (bound != 0 && bound != rowGeneration) {
        LOG.info("Ledger '{}' in {} was deleted{} since this patch log read it (generation {},"
            + " now {}): refused a commit expecting revision {}", root, tables,
            rowGeneration == 0 ? "" : " and created again", bound, rowGeneration,
            batch.get(0).expectedRevision());
      }
      throw conflict;
    } catch (SQLException e) {
      throw new DatabaseException("Reading why a patch commit to ledger '" + root
          + "' was refused", e, false);
    }
  }

  /**
   * Runs the guarded statement of {@code record}.
   *
   * @param guard the generation the head row must have (unused for revision 1)
   * @return the row's journal bytes since its state and its generation if the write won;
   *     null if another writer holds the revision or the row has another generation (nothing
   *     was written)
   */
  private long[] write(Connection c, CommitRecord record, PatchRequest request, int length,
      long guard, DocumentTable.Rows rows) throws SQLException {
    boolean first = record.revision() == 1;
    String committedAt = record.committedAt().toString();
    EventColumns columns = new EventColumns(root, record.events(), record.committedAt(),
        committedAt);
    boolean command = record.commandId() != null;
    String sql = tables.patchSql().write(rows != null, first, columns.shape(), command);
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      int p = 1;
      ps.setString(p++, Math.max(1, tables.options().lockTimeout().toMillis()) + "ms");
      ps.setLong(p++, record.revision());
      ps.setLong(p++, record.nextSequence());
      ps.setInt(p++, record.stateVersion());
      ps.setString(p++, committedAt);
      ps.setLong(p++, length);
      ps.setString(p++, root);
      if (!first) {
        ps.setLong(p++, record.revision() - 1);
        ps.setLong(p++, record.firstSequence());
        ps.setLong(p++, guard);
      }
      ps.setLong(p++, record.revision());
      ps.setString(p++, committedAt);
      ps.setLong(p++, record.firstSequence());
      ps.setInt(p++, record.events().size());
      ps.setInt(p++, record.format());
      ps.setString(p++, record.commandId());
      ps.setString(p++, record.commandDigest());
      ps.setInt(p++, record.stateVersion());
      ps.setBytes(p++, LedgerJson.canonical(record.patch()));
      p = columns.bind(c, ps, p, record.revision());
      if (command) {
        ps.setString(p++, record.commandId());
        ps.setString(p++, request.commandDigest());
        ps.setLong(p++, record.revision());
      }
      if (rows != null) {
        p = rows.bind(c, ps, p, record.revision());
      }
      ps.execute();
      ps.getMoreResults();
      try (ResultSet rs = ps.getResultSet()) {
        return rs.next() ? new long[] {rs.getLong(1), rs.getLong(2)} : null;
      }
    }
  }

  /** The record of {@code request} after {@code revision}; checks event payload sizes. */
  private CommitRecord record(PatchRequest request, long revision, long nextSequence,
      Instant now) {
    long next = revision + 1;
    List<Event> events = new ArrayList<>(request.events().size());
    long sequence = nextSequence;
    for (int i = 0; i < request.events().size(); i++) {
      EventDraft draft = request.events().get(i);
      int size = LedgerJson.canonical(draft.payload()).length;
      if (size > tables.options().maxEventPayloadBytes()) {
        throw new LimitExceededException(root, "payload of event " + i + " (" + draft.type()
            + ")", tables.options().maxEventPayloadBytes(), size);
      }
      events.add(new Event(CommitRecord.eventId(root, sequence), root, sequence, next,
          draft.type(), now, draft.payload(), request.publicCommandId(), draft.operationId()));
      sequence++;
    }
    return new CommitRecord(CommitRecord.FORMAT, root, next, now, nextSequence, events,
        request.publicCommandId(), request.commandDigest(), request.stateVersion(), null,
        request.patch());
  }

  @Override
  public boolean checkpoint(long revision, JsonNode state, int stateVersion) {
    Preconditions.checkArgument(revision >= 1, "revision must be >= 1: %s", revision);
    Preconditions.checkNotNull(state, "state");
    Preconditions.checkArgument(stateVersion >= 0, "stateVersion must be >= 0: %s",
        stateVersion);
    byte[] bytes = LedgerJson.canonical(state);
    long max = 2L * tables.options().maxStateBytes() + 64 * 1024;
    if (bytes.length > max) {
      throw new LimitExceededException(root, "checkpoint", max, bytes.length);
    }
    return store.guarded(() -> ledger.query("Checkpoint of ledger '" + root + "' at revision "
        + revision, c -> {
          try (PreparedStatement ps = c.prepareStatement("UPDATE " + tables.ledgers()
              + " SET state = ?, checkpoint_revision = NULL, journal_bytes = 0"
              + " WHERE root_id = ? AND revision = ? AND state_version = ?"
              + " AND (? = 0 OR generation = ?)")) {
            // A state folded from a deleted ledger's commits is not the new ledger's state,
            // even at the same revision.
            long bound = generation;
            ps.setBytes(1, bytes);
            ps.setString(2, root);
            ps.setLong(3, revision);
            ps.setInt(4, stateVersion);
            ps.setLong(5, bound);
            ps.setLong(6, bound);
            if (ps.executeUpdate() == 1) {
              journalBytes = 0;
              return true;
            }
          }
          try (PreparedStatement ps = c.prepareStatement("SELECT revision, state_version,"
              + " generation FROM " + tables.ledgers() + " WHERE root_id = ?")) {
            ps.setString(1, root);
            try (ResultSet rs = ps.executeQuery()) {
              long bound = generation;
              if (rs.next() && rs.getLong(1) == revision
                  && (bound == 0 || bound == rs.getLong(3))) {
                throw new IllegalArgumentException("revision " + revision + " of ledger '"
                    + root + "' was committed with state version " + rs.getInt(2)
                    + ", not " + stateVersion);
              }
              return false;
            }
          }
        }));
  }

  @Override
  public long journalBytesSinceCheckpoint() {
    long known = journalBytes;
    if (known >= 0) {
      return known;
    }
    return store.guarded(() -> ledger.query("Reading the journal size of ledger '" + root
        + "'", c -> {
          try (PreparedStatement ps = c.prepareStatement("SELECT journal_bytes FROM "
              + tables.ledgers() + " WHERE root_id = ?")) {
            ps.setString(1, root);
            try (ResultSet rs = ps.executeQuery()) {
              return rs.next() ? rs.getLong(1) : 0L;
            }
          }
        }));
  }

  private JsonNode json(byte[] bytes, String what) {
    try {
      return LedgerJson.parse(bytes);
    } catch (IOException e) {
      throw HeadState.damaged(root, tables, "the " + what + " is not valid JSON: "
          + e.getMessage());
    }
  }

  @Override
  public String toString() {
    return "patch log of ledger '" + root + "' in " + tables;
  }

  /** The ledger row's revision and generation, or zeros when the ledger has no row. */
  private long[] headRow(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT revision, generation FROM "
        + tables.ledgers() + " WHERE root_id = ?")) {
      ps.setString(1, root);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? new long[] {rs.getLong(1), rs.getLong(2)} : new long[2];
      }
    }
  }
}
