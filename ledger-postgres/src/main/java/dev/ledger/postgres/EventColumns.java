package dev.ledger.postgres;

import dev.ledger.core.Event;
import dev.ledger.core.LedgerException;
import dev.ledger.core.internal.journal.CommitRecord;
import dev.ledger.core.internal.json.LedgerJson;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * A commit's events as the columns the commit statements insert: sequence, type, canonical
 * payload, operation id, command id, occurrence time as {@code Instant.toString}, event id.
 * How they are sent depends on their number ({@link Shape}): no event inserts nothing, one
 * event is one row of scalar parameters, more are seven arrays inserted with one
 * {@code unnest}. Not thread-safe; made and bound by the one thread writing the commit.
 *
 * <p><b>Derived columns (schema version 6).</b> The time and the id of an event are stored
 * only when they cannot be derived: {@code occurred_at} is null when the event occurred at
 * its commit's time ({@code commits.committed_at}), and {@code id} is null when it is
 * {@link CommitRecord#eventId} of its root and sequence. Every event this module commits is
 * both, so its row holds neither (96 bytes less in the row and in the WAL per event). Readers
 * put them back ({@link #OCCURRED_AT}, {@link #id}) and get the same values as before; rows
 * written before version 6, or by an import, keep both columns and read as they are.
 */
final class EventColumns {
  /**
   * How a commit statement inserts its events, by their number: a statement is built once
   * per shape, and a commit picks the one of its events.
   */
  enum Shape {
    /** No event: the statement has no event insert. */
    NONE,
    /** One event: its columns are scalar parameters (no arrays to encode and unnest). */
    ONE,
    /** Any number: seven array parameters, expanded by {@code unnest}. */
    MANY;

    /** The shape of a commit of {@code events} events. */
    static Shape of(int events) {
      return events == 0 ? NONE : events == 1 ? ONE : MANY;
    }
  }

  private final Shape shape;
  private final Long[] sequences;
  private final String[] types;
  private final byte[][] payloads;
  private final String[] operations;
  private final String[] commands;
  private final String[] times;
  private final String[] ids;

  /**
   * The columns of {@code events}.
   *
   * @param root the ledger's root id
   * @param events the commit's events, in order
   * @param committed the commit's time
   * @param committedAt {@code committed} as {@code Instant.toString}, for an event that did
   *     not occur at it
   */
  EventColumns(String root, List<Event> events, Instant committed, String committedAt) {
    int n = events.size();
    shape = Shape.of(n);
    sequences = new Long[n];
    types = new String[n];
    payloads = new byte[n][];
    operations = new String[n];
    commands = new String[n];
    times = new String[n];
    ids = new String[n];
    for (int i = 0; i < n; i++) {
      Event e = events.get(i);
      sequences[i] = e.sequence();
      types[i] = e.type();
      payloads[i] = LedgerJson.canonical(e.payload());
      operations[i] = e.operationId();
      commands[i] = e.commandId();
      times[i] = e.occurredAt().equals(committed) ? null : e.occurredAt().toString();
      ids[i] = storedId(root, e);
    }
  }

  /**
   * What a reader selects for the event's time, from the events table aliased {@code e}: the
   * stored time, or its commit's. Null only if the commit row is missing (damage).
   */
  static String occurredAt(PostgresLedgerStore.Tables t) {
    return "coalesce(e.occurred_at, (SELECT m.committed_at FROM " + t.commits() + " m"
        + " WHERE m.root_id = e.root_id AND m.revision = e.revision))";
  }

  /** The id column of {@code e}: null when it is the id derived from root and sequence. */
  static String storedId(String root, Event e) {
    return e.id().equals(CommitRecord.eventId(root, e.sequence())) ? null : e.id();
  }

  /** The id of an event read back: {@code stored}, or the id derived when it is null. */
  static String id(String root, long sequence, String stored) {
    return stored != null ? stored : CommitRecord.eventId(root, sequence);
  }

  /**
   * The time of an event read back through {@link #occurredAt}.
   *
   * @throws LedgerException if it is null: the event's commit row is missing
   */
  static Instant time(String root, long sequence, String read) {
    if (read == null) {
      throw new LedgerException("Ledger '" + root + "' is damaged: event " + sequence
          + " has no time and its commit row is missing");
    }
    return Instant.parse(read);
  }

  /** The shape these events are sent in. */
  Shape shape() {
    return shape;
  }

  /** The canonical payloads, in event order (shared, not copied). */
  byte[][] payloads() {
    return payloads;
  }

  /**
   * The common table expression {@code event_rows} that inserts the events of a commit in
   * {@code shape}, one row per event, only if the CTE {@code head} returned a row (whose
   * {@code root_id} it takes); empty for {@link Shape#NONE}. Its parameters: the revision,
   * then the columns ({@link #bind}).
   */
  static String insertCte(PostgresLedgerStore.Tables t, Shape shape) {
    String into = " event_rows AS (INSERT INTO " + t.events() + " (root_id, revision, sequence,"
        + " type, payload, operation_id, command_id, occurred_at, id)";
    return switch (shape) {
      case NONE -> "";
      case ONE -> into + " SELECT head.root_id, ?, ?::bigint, ?::text, ?::bytea, ?::text,"
          + " ?::text, ?::text, ?::text FROM head)";
      case MANY -> into + " SELECT head.root_id, ?, e.sequence, e.type, e.payload,"
          + " e.operation_id, e.command_id, e.occurred_at, e.id FROM head, unnest(?::bigint[],"
          + " ?::text[], ?::bytea[], ?::text[], ?::text[], ?::text[], ?::text[]) AS e (sequence,"
          + " type, payload, operation_id, command_id, occurred_at, id))";
    };
  }

  /**
   * Binds the parameters of {@link #insertCte} in this shape from {@code first} on: the
   * revision and the columns; nothing for {@link Shape#NONE}.
   *
   * @return the index of the parameter after them
   * @throws SQLException from the driver
   */
  int bind(Connection c, PreparedStatement ps, int first, long revision) throws SQLException {
    int p = first;
    switch (shape) {
      case NONE -> {
        return p;
      }
      case ONE -> {
        ps.setLong(p++, revision);
        ps.setLong(p++, sequences[0]);
        ps.setString(p++, types[0]);
        ps.setBytes(p++, payloads[0]);
        ps.setString(p++, operations[0]);
        ps.setString(p++, commands[0]);
        ps.setString(p++, times[0]);
        ps.setString(p++, ids[0]);
        return p;
      }
      default -> {
        ps.setLong(p++, revision);
        ps.setArray(p++, c.createArrayOf("bigint", sequences));
        ps.setArray(p++, c.createArrayOf("text", types));
        ps.setArray(p++, c.createArrayOf("bytea", payloads));
        ps.setArray(p++, c.createArrayOf("text", operations));
        ps.setArray(p++, c.createArrayOf("text", commands));
        ps.setArray(p++, c.createArrayOf("text", times));
        ps.setArray(p++, c.createArrayOf("text", ids));
        return p;
      }
    }
  }
}
