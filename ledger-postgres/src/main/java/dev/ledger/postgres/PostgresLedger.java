package dev.ledger.postgres;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.core.CommandConflictException;
import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventPage;
import dev.ledger.core.LedgerException;
import dev.ledger.core.LedgerHead;
import dev.ledger.core.LedgerNotFoundException;
import dev.ledger.core.LimitExceededException;
import dev.ledger.core.LockTimeoutException;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.internal.journal.CommitRecord;
import dev.ledger.core.internal.journal.CursorCodec;
import dev.ledger.core.internal.journal.JournalLine;
import dev.ledger.core.internal.json.LedgerJson;
import dev.ledger.core.spi.CommitRequest;
import dev.ledger.core.spi.CommitSignal;
import dev.ledger.core.spi.CommitWatch;
import dev.ledger.core.spi.CursoredEvent;
import dev.ledger.core.spi.LedgerBackend;
import dev.ledger.core.spi.StoredState;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * One ledger in the tables of {@link Schema}. Holds no connection between calls: each call
 * borrows one from the store's data source. Commits are one transaction each, whose guarded
 * {@code UPDATE} (or {@code INSERT ... ON CONFLICT DO NOTHING} for the first revision) lets
 * exactly one writer per revision through; reads are plain MVCC reads that take no lock.
 *
 * <p>Cursors are the core's tokens ({@link CursorCodec}), bound to the root id, with segment 0
 * and offset the revision of the commit holding the cursor's last event (or ending just before
 * the next one): a cursor is checked against that commit's row before it is used.
 */
final class PostgresLedger implements LedgerBackend {
  /** Events per query when a replay stream pages through the journal. */
  private static final int REPLAY_PAGE = 500;

  private final PostgresLedgerStore.Tables tables;
  private final String root;
  private final CommitSignal signal = new CommitSignal();
  /**
   * The head as this process last saw it committed (by a commit or a read), or null. Only a
   * hint: a commit whose expected revision matches it writes at once, guarded by the same
   * {@code WHERE revision = expected}; a revision has one winner, so a head row still at that
   * revision holds exactly this state. A stale hint costs one failed statement.
   */
  private volatile Head seen;

  PostgresLedger(PostgresLedgerStore.Tables tables, String root) {
    this.tables = tables;
    this.root = root;
  }

  @Override
  public String rootId() {
    return root;
  }

  /** Fired on every commit of this ledger this process learns of. */
  CommitSignal signal() {
    return signal;
  }

  @Override
  public Optional<StoredState> read() {
    return query("Reading ledger '" + root + "'", c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT revision, updated_at, state_version,"
          + " state, next_sequence, generation, checkpoint_revision FROM " + tables.ledgers()
          + " WHERE root_id = ?")) {
        ps.setString(1, root);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            return Optional.empty();
          }
          JsonNode state = HeadState.latest(c, tables, root, rs.getBytes(4),
              rs.getObject(7, Long.class), rs.getLong(1));
          seen = new Head(rs.getLong(1), rs.getLong(5), state, rs.getLong(6));
          return Optional.of(new StoredState(state, rs.getLong(1),
              Instant.parse(rs.getString(2)), rs.getInt(3)));
        }
      }
    });
  }

  @Override
  public boolean exists() {
    return head().isPresent();
  }

  @Override
  public Optional<LedgerHead> head() {
    return query("Reading the head of ledger '" + root + "'", c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT revision, next_sequence, updated_at"
          + " FROM " + tables.ledgers() + " WHERE root_id = ?")) {
        ps.setString(1, root);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            return Optional.empty();
          }
          return Optional.of(new LedgerHead(root, rs.getLong(1), rs.getLong(2) - 1,
              Instant.parse(rs.getString(3))));
        }
      }
    });
  }

  /**
   * {@inheritDoc}
   *
   * <p>On PostgreSQL the commit is one statement in autocommit mode, sent with the setting of
   * its lock timeout in one round trip; PostgreSQL runs both in one implicit transaction and
   * commits it when it answers. When this process saw the expected revision last (the hint),
   * that statement is all; otherwise, or when the hint was stale, one read of the head row and
   * the command comes first.
   */
  @Override
  public CommitResult commit(CommitRequest request) {
    String operation = "Commit to ledger '" + root + "'";
    Connection c = tables.connect(operation);
    boolean sent = false;
    try {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true); // a data source of the caller's may hand out transactions
      }
      Head hint = seen;
      if (hint != null && hint.revision() == request.expectedRevision()) {
        CommitRecord record = record(hint, request);
        sent = true;
        OptionalLong won = attempt(c, record, request, hint);
        if (won.isPresent()) {
          return committed(record, request, won.getAsLong());
        }
        // The statement wrote nothing: the hint was stale (another writer, or a delete and
        // recreate elsewhere), or the command was recorded already. The careful path says
        // which, and how to answer.
        sent = false;
      }
      Before before = before(c, request);
      seen = before.head();
      if (before.recorded() != null) {
        return before.recorded();
      }
      Head head = before.head();
      long revision = head == null ? 0 : head.revision();
      if (request.expectedRevision() != revision) {
        throw new RevisionConflictException(root, request.expectedRevision(), revision);
      }
      CommitRecord record = record(head, request);
      sent = true;
      OptionalLong won = write(c, record, request, head);
      if (won.isEmpty()) {
        // Another writer took this revision. Its command row is visible to a new statement:
        // a retry of the same command replays, as on files, where the check runs first.
        sent = false;
        Before now = before(c, request);
        if (now.recorded() != null) {
          return now.recorded();
        }
        throw new RevisionConflictException(root, request.expectedRevision(),
            now.head() == null ? 0 : now.head().revision());
      }
      return committed(record, request, won.getAsLong());
    } catch (SQLException e) {
      if ("55P03".equals(e.getSQLState())) {
        throw new LockTimeoutException("PostgreSQL row of ledger '" + root + "'",
            tables.options().lockTimeout());
      }
      if ("23505".equals(e.getSQLState()) && request.publicCommandId() != null) {
        // The command id was recorded by a racing writer between our check and our insert.
        Optional<CommitResult> recorded = query(operation, cc -> Optional.ofNullable(
            before(cc, request).recorded()));
        if (recorded.isPresent()) {
          return recorded.get();
        }
      }
      throw new DatabaseException(operation, e, sent && !refusedBeforeCommit(e));
    } finally {
      tables.release(c, operation);
    }
  }

  /**
   * Whether the server reported {@code e} for a statement that it then rolled back, so that
   * the write certainly did not land: a constraint, data or syntax error, a serialization
   * failure or deadlock, a lock timeout, a limit. A broken connection, a server shutting down
   * or crashing, or anything else leaves the outcome unknown.
   */
  static boolean refusedBeforeCommit(SQLException e) {
    String state = e.getSQLState();
    if (state == null) {
      return false;
    }
    return state.startsWith("22") || state.startsWith("23") || state.startsWith("42")
        || state.startsWith("54") || state.equals("40001") || state.equals("40P01")
        || state.equals("55P03");
  }

  /**
   * Deletes the ledger: its head row (locked first, waiting up to the lock timeout, so that a
   * commit in flight finishes or this waits), its commits, events and commands, in one
   * transaction. Afterwards this backend is that of a ledger never committed to. Backends of
   * other stores keep a hint of the old head: their next commit at that revision finds no row
   * with that revision and generation (a ledger created again has a new one), writes nothing,
   * and takes the careful path, which reads the head as it is.
   *
   * @return true if the ledger had a commit
   * @throws dev.ledger.core.LedgerBusyException if a writer held the head row past the lock
   *     timeout
   * @throws DatabaseException for the server's failures
   */
  boolean delete() {
    String operation = "Delete ledger '" + root + "'";
    Connection c = tables.connect(operation);
    try {
      c.setAutoCommit(false);
      try {
        try (PreparedStatement ps = c.prepareStatement(
            "SELECT set_config('lock_timeout', ?, true)")) {
          ps.setString(1, lockTimeout());
          ps.executeQuery().close();
        }
        boolean existed;
        try (PreparedStatement ps = c.prepareStatement("SELECT revision FROM "
            + tables.ledgers() + " WHERE root_id = ? FOR UPDATE")) {
          ps.setString(1, root);
          try (ResultSet rs = ps.executeQuery()) {
            existed = rs.next();
          }
        }
        if (existed) {
          for (String table : List.of(tables.events(), tables.commands(), tables.commits(),
              tables.ledgers())) {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table
                + " WHERE root_id = ?")) {
              ps.setString(1, root);
              ps.executeUpdate();
            }
          }
        }
        c.commit();
        seen = null;
        return existed;
      } catch (SQLException | RuntimeException e) {
        Schema.rollbackQuietly(c, e);
        throw e;
      }
    } catch (SQLException e) {
      if ("55P03".equals(e.getSQLState())) {
        throw new dev.ledger.core.LedgerBusyException(root, "delete", null, null,
            new LockTimeoutException("PostgreSQL row of ledger '" + root + "'",
                tables.options().lockTimeout()));
      }
      throw new DatabaseException(operation, e, false);
    } finally {
      tables.release(c, operation);
    }
  }

  /**
   * A head row as read or written: its revision, next sequence, state and generation (a
   * number the row got when its ledger was created, new after a delete and a recreate).
   */
  private record Head(long revision, long nextSequence, JsonNode state, long generation) {}

  /**
   * The record that commits {@code request} after {@code head} (null before revision 1). Its
   * journal line's limit is checked by {@link #write}, with the bytes it encodes anyway.
   */
  private CommitRecord record(Head head, CommitRequest request) {
    return CommitRecord.next(root, head == null ? 0 : head.revision(),
        head == null ? 1 : head.nextSequence(), head == null ? null : head.state(), request,
        tables.options().clock().instant());
  }

  /**
   * Refuses a record whose journal line (what the file store would write, and what
   * {@link LedgerTransfer#export} writes) would pass the store's limit, as the file store
   * does. The line is encoded only when a cheap upper bound of its length passes the limit:
   * encoding every commit's line only to measure it was a second JSON encoding of the whole
   * commit. The bound counts the state or patch and the payloads at their canonical length
   * (which the line repeats byte for byte), every other string at six bytes a character (the
   * longest escape a character becomes), and generous room for keys, numbers and punctuation.
   *
   * @param changeBytes the canonical length of the record's state, or of its patch
   * @param payloads the canonical payloads of its events
   * @throws LimitExceededException if the line would pass the limit
   */
  private void checkLineLimit(CommitRecord record, int changeBytes, byte[][] payloads) {
    long max = JournalLine.maxLineBytes(tables.options());
    long bound = 1024 + changeBytes + 6L * (chars(root) + chars(record.commandId())
        + chars(record.commandDigest()) + chars(record.committedAt().toString()));
    List<Event> events = record.events();
    for (int i = 0; i < events.size() && bound <= max; i++) {
      Event e = events.get(i);
      bound += 256 + payloads[i].length + 6L * (chars(e.type()) + chars(e.id())
          + chars(e.operationId()) + chars(e.commandId()) + chars(e.occurredAt().toString()));
    }
    if (bound <= max) {
      return;
    }
    long length = JournalLine.encode(record).length;
    if (length > max) {
      throw new LimitExceededException(root, "commit record", max, length);
    }
  }

  private static int chars(String s) {
    return s == null ? 0 : s.length();
  }

  /** After the commit returned: remembers the head, wakes local followers, builds the result. */
  private CommitResult committed(CommitRecord record, CommitRequest request, long generation) {
    seen = new Head(record.revision(), record.nextSequence(), request.state(), generation);
    signal.fire();
    tables.notifier().committed(root);
    return record.result(cursorAfter(record.lastSequence(), record.revision()), false);
  }

  /**
   * The write without a read first, on the hint's revision and generation: the generation the
   * row has if it won. Empty if another writer holds the revision, the ledger was deleted or
   * recreated since, or the command id is recorded already (the statement failed on the
   * command's unique key and was rolled back); nothing was written then.
   */
  private OptionalLong attempt(Connection c, CommitRecord record, CommitRequest request,
      Head hint) throws SQLException {
    try {
      return write(c, record, request, hint);
    } catch (SQLException e) {
      if ("23505".equals(e.getSQLState())) {
        return OptionalLong.empty();
      }
      throw e;
    }
  }

  /** What a commit reads first: the head row, and the replay if its command was recorded. */
  private record Before(Head head, CommitResult recorded) {}

  /**
   * One statement, one snapshot, no lock: reads the head row and the request's command row.
   *
   * @throws CommandConflictException if the command was recorded with another digest
   */
  private Before before(Connection c, CommitRequest request) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(tables.sql().before())) {
      ps.setString(1, root);
      ps.setString(2, root);
      ps.setString(3, request.publicCommandId());
      String digest;
      long recordedRevision;
      Head head = null;
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        long revision = rs.getLong(1);
        if (!rs.wasNull()) {
          head = new Head(revision, rs.getLong(2), HeadState.latest(c, tables, root,
              rs.getBytes(3), rs.getObject(7, Long.class), revision), rs.getLong(6));
        }
        digest = rs.getString(4);
        recordedRevision = rs.getLong(5);
      }
      if (digest == null) {
        return new Before(head, null);
      }
      if (!digest.equals(request.commandDigest())) {
        throw new CommandConflictException(root, request.publicCommandId(), recordedRevision,
            digest, request.commandDigest());
      }
      return new Before(head, replayOf(c, recordedRevision));
    }
  }

  /**
   * Writes the commit in one statement, in autocommit mode: moves the head row from the
   * expected revision and generation of {@code previous} (or inserts it for revision 1) and,
   * only if that took a row, inserts the commit, its events and its command (the notification
   * follows once it committed: {@link CommitNotifier}). The lock timeout is set in the same implicit transaction, sent in the same
   * round trip; PostgreSQL commits when it answers.
   *
   * @param previous the head the record follows, or null for revision 1
   * @return the generation of the ledger's row if the write won; empty if another writer holds
   *     the revision or the row has another generation (nothing was written)
   */
  private OptionalLong write(Connection c, CommitRecord record, CommitRequest request,
      Head previous) throws SQLException {
    boolean first = record.revision() == 1;
    byte[] state = record.state() != null ? LedgerJson.canonical(record.state())
        : LedgerJson.canonical(request.state());
    String committedAt = record.committedAt().toString();
    EventColumns columns = new EventColumns(root, record.events(), record.committedAt(),
        committedAt);
    byte[] patch = record.patch() == null ? null : LedgerJson.canonical(record.patch());
    checkLineLimit(record, patch == null ? state.length : patch.length,
        columns.payloads());
    boolean command = record.commandId() != null;
    try (PreparedStatement ps = c.prepareStatement(tables.sql().write(first, columns.shape(),
        command))) {
      int p = 1;
      ps.setString(p++, lockTimeout());
      ps.setLong(p++, record.revision());
      ps.setLong(p++, record.nextSequence());
      ps.setInt(p++, record.stateVersion());
      ps.setString(p++, committedAt);
      ps.setBytes(p++, state);
      ps.setString(p++, root);
      if (!first) {
        ps.setLong(p++, record.revision() - 1);
        ps.setLong(p++, previous.generation());
      }
      ps.setLong(p++, record.revision());
      ps.setString(p++, committedAt);
      ps.setLong(p++, record.firstSequence());
      ps.setInt(p++, record.events().size());
      ps.setInt(p++, record.format());
      ps.setString(p++, record.commandId());
      ps.setString(p++, record.commandDigest());
      ps.setInt(p++, record.stateVersion());
      ps.setBytes(p++, record.state() == null ? null : state);
      ps.setBytes(p++, patch);
      p = columns.bind(c, ps, p, record.revision());
      if (command) {
        ps.setString(p++, record.commandId());
        ps.setString(p++, request.commandDigest());
        ps.setLong(p++, record.revision());
      }
      ps.execute();
      ps.getMoreResults();
      try (ResultSet rs = ps.getResultSet()) {
        return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
      }
    }
  }

  /** The store's lock timeout as a {@code lock_timeout} setting. */
  private String lockTimeout() {
    return Math.max(1, tables.options().lockTimeout().toMillis()) + "ms";
  }

  /** The result of the commit of {@code revision}, as a replay. */
  private CommitResult replayOf(Connection c, long revision) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT committed_at, first_sequence,"
        + " event_count FROM " + tables.commits() + " WHERE root_id = ? AND revision = ?")) {
      ps.setString(1, root);
      ps.setLong(2, revision);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw damaged("the command index names revision " + revision
              + ", which has no commit row");
        }
        Instant committedAt = Instant.parse(rs.getString(1));
        long first = rs.getLong(2);
        int count = rs.getInt(3);
        List<Event> events = count == 0 ? List.of() : eventsBetween(c, first, first + count);
        return new CommitResult(root, revision, committedAt, events,
            cursorAfter(first + count - 1, revision), true);
      }
    }
  }

  /** Inserts the commits row of {@code record}. */
  void insertCommit(Connection c, CommitRecord record) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + tables.commits()
        + " (root_id, revision, committed_at, first_sequence, event_count, record_format,"
        + " command_id, command_digest, state_version, state, patch)"
        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      ps.setString(1, root);
      ps.setLong(2, record.revision());
      ps.setString(3, record.committedAt().toString());
      ps.setLong(4, record.firstSequence());
      ps.setInt(5, record.events().size());
      ps.setInt(6, record.format());
      ps.setString(7, record.commandId());
      ps.setString(8, record.commandDigest());
      ps.setInt(9, record.stateVersion());
      ps.setBytes(10, record.state() == null ? null : LedgerJson.canonical(record.state()));
      ps.setBytes(11, record.patch() == null ? null : LedgerJson.canonical(record.patch()));
      ps.executeUpdate();
    }
  }

  /** Inserts the events rows, in one batch. */
  void insertEvents(Connection c, List<Event> events) throws SQLException {
    if (events.isEmpty()) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + tables.events()
        + " (root_id, sequence, revision, type, payload, operation_id, command_id, occurred_at,"
        + " id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      for (Event e : events) {
        ps.setString(1, root);
        ps.setLong(2, e.sequence());
        ps.setLong(3, e.revision());
        ps.setString(4, e.type());
        ps.setBytes(5, LedgerJson.canonical(e.payload()));
        ps.setString(6, e.operationId());
        ps.setString(7, e.commandId());
        ps.setString(8, e.occurredAt().toString());
        ps.setString(9, e.id());
        if (events.size() == 1) {
          ps.executeUpdate();
          return;
        }
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  /** Records a command id with its intent digest. */
  void insertCommand(Connection c, String commandId, String digest, long revision)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + tables.commands()
        + " (root_id, command_id, digest, revision) VALUES (?, ?, ?, ?)")) {
      ps.setString(1, root);
      ps.setString(2, commandId);
      ps.setString(3, digest);
      ps.setLong(4, revision);
      ps.executeUpdate();
    }
  }

  /** Queues the notification that PostgreSQL delivers to listeners when the transaction commits. */
  void notifyCommit(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, ?)")) {
      ps.setString(1, tables.channel());
      ps.setString(2, root);
      ps.execute();
    }
  }

  @Override
  public Optional<CommitResult> command(String publicCommandId) {
    return query("Reading command " + publicCommandId + " of ledger '" + root + "'", c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT revision FROM " + tables.commands()
          + " WHERE root_id = ? AND command_id = ?")) {
        ps.setString(1, root);
        ps.setString(2, publicCommandId);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            return Optional.empty();
          }
          return Optional.of(replayOf(c, rs.getLong(1)));
        }
      }
    });
  }

  @Override
  public EventPage events(Cursor after, int limit) {
    List<CursoredEvent> read = read(after, limit + 1);
    if (read.isEmpty()) {
      return new EventPage(List.of(), after, false);
    }
    boolean more = read.size() > limit;
    List<CursoredEvent> page = more ? read.subList(0, limit) : read;
    return new EventPage(page.stream().map(CursoredEvent::event).toList(),
        page.get(page.size() - 1).after(), more);
  }

  @Override
  public List<CursoredEvent> eventsWithCursors(Cursor after, int limit) {
    return read(after, limit);
  }

  @Override
  public Stream<Event> replay(Cursor after) {
    long start = checkedPosition(after);
    return Paged.after(start, REPLAY_PAGE, last -> query("Replaying ledger '" + root + "'",
        c -> eventsBetween(c, last + 1, Long.MAX_VALUE, REPLAY_PAGE)), Event::sequence);
  }

  @Override
  public CommitWatch watchCommits() {
    return tables.watch(this);
  }

  /** Up to {@code limit} events after {@code after}, each with its cursor. */
  private List<CursoredEvent> read(Cursor after, int limit) {
    long position = checkedPosition(after);
    List<Event> events = query("Reading events of ledger '" + root + "'",
        c -> eventsBetween(c, position + 1, Long.MAX_VALUE, limit));
    List<CursoredEvent> out = new ArrayList<>(events.size());
    for (Event e : events) {
      out.add(new CursoredEvent(e, cursorAfter(e.sequence(), e.revision())));
    }
    return out;
  }

  /**
   * The last sequence {@code after} covers, after checking that it is a cursor of this ledger
   * whose position hint names a commit that holds, or ends just before, the next event.
   */
  private long checkedPosition(Cursor after) {
    if (after.isStart()) {
      return 0;
    }
    CursorCodec.Position position = CursorCodec.decode(root, after);
    return query("Checking a cursor of ledger '" + root + "'", c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT l.revision, m.first_sequence,"
          + " m.event_count FROM " + tables.ledgers() + " l LEFT JOIN " + tables.commits()
          + " m ON m.root_id = l.root_id AND m.revision = ? WHERE l.root_id = ?")) {
        ps.setLong(1, position.offset());
        ps.setString(2, root);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            throw new LedgerNotFoundException(root);
          }
          long first = rs.getLong(2);
          if (position.segment() != 0 || rs.wasNull()) {
            throw CursorCodec.invalid(root, "cursor position is beyond the journal");
          }
          long next = first + rs.getInt(3);
          if (!(first <= position.after() + 1 && position.after() + 1 <= next)) {
            throw CursorCodec.invalid(root, "cursor position does not match the journal");
          }
          return position.after();
        }
      }
    });
  }

  private List<Event> eventsBetween(Connection c, long from, long until) throws SQLException {
    return eventsBetween(c, from, until, Integer.MAX_VALUE);
  }

  /** Events with sequences in [from, until), at most {@code limit}, in order. */
  List<Event> eventsBetween(Connection c, long from, long until, int limit)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT e.sequence, e.revision, e.type,"
        + " e.payload, e.operation_id, e.command_id, " + EventColumns.occurredAt(tables) + ", e.id"
        + " FROM " + tables.events() + " e WHERE e.root_id = ? AND e.sequence >= ?"
        + " AND e.sequence < ? ORDER BY e.sequence LIMIT ?")) {
      ps.setString(1, root);
      ps.setLong(2, from);
      ps.setLong(3, until);
      ps.setLong(4, limit);
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

  Cursor cursorAfter(long lastSequence, long revision) {
    return CursorCodec.encode(root, lastSequence, 0, revision);
  }

  private JsonNode json(byte[] bytes, String what) {
    try {
      return LedgerJson.parse(bytes);
    } catch (IOException e) {
      throw damaged("the " + what + " is not valid JSON: " + e.getMessage());
    }
  }

  private LedgerException damaged(String detail) {
    return new LedgerException("Ledger '" + root + "' in " + tables + " is damaged: " + detail);
  }

  /** A database read. */
  interface Query<T> {
    T run(Connection c) throws SQLException;
  }

  <T> T query(String operation, Query<T> body) {
    Connection c = tables.connect(operation);
    try {
      return body.run(c);
    } catch (SQLException e) {
      throw new DatabaseException(operation, e, false);
    } finally {
      tables.release(c, operation);
    }
  }
}
