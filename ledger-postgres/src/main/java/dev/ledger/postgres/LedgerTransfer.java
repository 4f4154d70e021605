package dev.ledger.postgres;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.core.Event;
import dev.ledger.core.ImportResult;
import dev.ledger.core.LedgerException;
import dev.ledger.core.LedgerExistsException;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.LedgerNotFoundException;
import dev.ledger.core.internal.journal.CommitRecord;
import dev.ledger.core.internal.journal.JournalLine;
import dev.ledger.core.internal.journal.LedgerExportFormat;
import dev.ledger.core.internal.journal.PositionedRecord;
import dev.ledger.core.internal.journal.RecordSource;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** Export and import of one ledger in the tables of {@link Schema}. */
final class LedgerTransfer {
  /** Rows fetched per round trip while exporting. */
  private static final int FETCH = 256;

  private LedgerTransfer() {}

  /**
   * Writes the export of {@code ledger} up to the revision its head row holds, read in one
   * repeatable-read snapshot.
   */
  static long export(PostgresLedgerStore.Tables tables, PostgresLedger ledger,
      OutputStream out) {
    String root = ledger.rootId();
    String operation = "Exporting ledger '" + root + "'";
    Connection c = tables.connect(operation);
    try {
      c.setAutoCommit(false);
      c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      c.setReadOnly(true);
      long revision;
      try (PreparedStatement ps = c.prepareStatement("SELECT revision FROM " + tables.ledgers()
          + " WHERE root_id = ?")) {
        ps.setString(1, root);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            throw new LedgerNotFoundException(root);
          }
          revision = rs.getLong(1);
        }
      }
      try (PreparedStatement commits = c.prepareStatement("SELECT revision, committed_at,"
              + " first_sequence, event_count, record_format, command_id, command_digest,"
              + " state_version, state, patch FROM " + tables.commits()
              + " WHERE root_id = ? AND revision <= ? ORDER BY revision");
          PreparedStatement events = c.prepareStatement("SELECT sequence, revision, type,"
              + " payload, operation_id, command_id, occurred_at, id FROM " + tables.events()
              + " WHERE root_id = ? AND revision <= ? ORDER BY sequence")) {
        commits.setFetchSize(FETCH);
        events.setFetchSize(FETCH);
        commits.setString(1, root);
        commits.setLong(2, revision);
        events.setString(1, root);
        events.setLong(2, revision);
        try (ResultSet cs = commits.executeQuery(); ResultSet es = events.executeQuery()) {
          long written = LedgerExportFormat.write(root, revision,
              tables.options().clock().instant(), new Rows(root, cs, es), out);
          if (written != revision) {
            throw new LedgerException("Ledger '" + root + "' in " + tables + " is damaged: "
                + written + " commit rows of " + revision);
          }
        }
      }
      c.commit();
      return revision;
    } catch (SQLException e) {
      throw new DatabaseException(operation, e, false);
    } catch (UncheckedSql e) {
      throw new DatabaseException(operation, e.getCause(), false);
    } catch (IOException e) {
      throw new LedgerIOException(null, "Writing the export of ledger '" + root + "' failed: "
          + e.getMessage(), e);
    } finally {
      try {
        c.setReadOnly(false);
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      } catch (SQLException e) {
        // release() rolls back and the pool resets the connection
      }
      tables.release(c, operation);
    }
  }

  /** The commit records of a ledger, rebuilt from its commits and events rows. */
  private static final class Rows implements RecordSource {
    private final String root;
    private final ResultSet commits;
    private final ResultSet events;
    private boolean eventPending;

    Rows(String root, ResultSet commits, ResultSet events) {
      this.root = root;
      this.commits = commits;
      this.events = events;
    }

    @Override
    public PositionedRecord next() {
      try {
        if (!commits.next()) {
          return null;
        }
        long revision = commits.getLong(1);
        int count = commits.getInt(4);
        List<Event> list = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
          if (!eventPending && !events.next()) {
            break;
          }
          eventPending = false;
          // A null time or id is the derived one (EventColumns): the commit's time, the id
          // of root and sequence.
          long sequence = events.getLong(1);
          String time = events.getString(7);
          list.add(new Event(EventColumns.id(root, sequence, events.getString(8)), root,
              sequence, events.getLong(2), events.getString(3),
              Instant.parse(time != null ? time : commits.getString(2)),
              json(events.getBytes(4)), events.getString(6), events.getString(5)));
        }
        byte[] state = commits.getBytes(9);
        byte[] patch = commits.getBytes(10);
        CommitRecord record = new CommitRecord(commits.getInt(5), root, revision,
            Instant.parse(commits.getString(2)), commits.getLong(3), list,
            commits.getString(6), commits.getString(7), commits.getInt(8),
            state == null ? null : json(state), patch == null ? null : json(patch));
        return new PositionedRecord(record, 0, revision);
      } catch (SQLException e) {
        throw new UncheckedSql(e);
      }
    }

    private JsonNode json(byte[] bytes) {
      try {
        return LedgerJson.parse(bytes);
      } catch (IOException e) {
        throw new LedgerException("Ledger '" + root + "' holds a row that is not valid JSON: "
            + e.getMessage(), e);
      }
    }

    @Override
    public void close() {}
  }

  /** Carries a driver failure out of {@link RecordSource#next}. */
  private static final class UncheckedSql extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UncheckedSql(SQLException cause) {
      super(cause);
    }

    @Override
    public synchronized SQLException getCause() {
      return (SQLException) super.getCause();
    }
  }

  /**
   * Reads and checks the whole export, then inserts every row of the ledger in one
   * transaction.
   */
  static ImportResult importLedger(PostgresLedgerStore.Tables tables,
      Function<String, PostgresLedger> backendOf, InputStream in) {
    LedgerExportFormat.Lines lines = new LedgerExportFormat.Lines(in,
        JournalLine.maxLineBytes(tables.options()));
    LedgerExportFormat.Header header = LedgerExportFormat.readHeader(lines);
    PostgresLedger ledger = backendOf.apply(header.root());
    String root = header.root();
    if (ledger.exists()) {
      throw new LedgerExistsException(root, "the store holds it");
    }
    LedgerExportFormat.Validator validator = new LedgerExportFormat.Validator(header);
    List<CommitRecord> records = new ArrayList<>();
    try {
      validator.readAll(lines, (record, line, length) -> records.add(record));
    } catch (IOException e) {
      throw new LedgerIOException(null, "Reading the export of ledger '" + root + "' failed: "
          + e.getMessage(), e);
    }
    CommitRecord last = validator.last();
    String operation = "Importing ledger '" + root + "'";
    Connection c = tables.connect(operation);
    try {
      c.setAutoCommit(false);
      try {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + tables.ledgers()
            + " (root_id, revision, next_sequence, state_version, updated_at, state)"
            + " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (root_id) DO NOTHING")) {
          ps.setString(1, root);
          ps.setLong(2, last.revision());
          ps.setLong(3, validator.nextSequence());
          ps.setInt(4, last.stateVersion());
          ps.setString(5, last.committedAt().toString());
          ps.setBytes(6, LedgerJson.canonical(validator.state()));
          if (ps.executeUpdate() != 1) {
            c.rollback();
            throw new LedgerExistsException(root, "the store holds it");
          }
        }
        List<Event> events = new ArrayList<>();
        for (CommitRecord record : records) {
          ledger.insertCommit(c, record);
          events.addAll(record.events());
          if (record.commandId() != null) {
            ledger.insertCommand(c, record.commandId(), record.intentDigest(),
                record.revision());
          }
        }
        ledger.insertEvents(c, events);
        ledger.notifyCommit(c);
        c.commit();
      } catch (SQLException | RuntimeException e) {
        Schema.rollbackQuietly(c, e);
        throw e;
      }
    } catch (SQLException e) {
      if ("23505".equals(e.getSQLState())) {
        throw new LedgerExistsException(root, "another import or commit created it meanwhile");
      }
      throw new DatabaseException(operation, e, false);
    } finally {
      tables.release(c, operation);
    }
    ledger.signal().fire();
    return new ImportResult(root, last.revision(), validator.nextSequence() - 1,
        validator.commands());
  }
}
