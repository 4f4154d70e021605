package dev.ledger.postgres;

import dev.ledger.core.Event;
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
   * @param events the commit's events, in order
   * @param committed the commit's time
   * @param committedAt {@code committed} as {@code Instant.toString}, reused for every event
   *     that occurred at it (all of them, for the commits of this module), so that the time is
   *     formatted once per commit
   */
  EventColumns(List<Event> events, Instant committed, String committedAt) {
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
      times[i] = e.occurredAt().equals(committed) ? committedAt : e.occurredAt().toString();
      ids[i] = e.id();
    }
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
