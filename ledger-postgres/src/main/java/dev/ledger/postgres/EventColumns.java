package dev.ledger.postgres;

import dev.ledger.core.Event;
import dev.ledger.core.internal.json.LedgerJson;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * A commit's events as the seven column arrays the commit statements insert with one
 * {@code unnest} (sequence, type, canonical payload, operation id, command id, occurrence
 * time as {@code Instant.toString}, event id), in that order. Not thread-safe; made and bound
 * by the one thread writing the commit.
 */
final class EventColumns {
  private final Long[] sequences;
  private final String[] types;
  private final byte[][] payloads;
  private final String[] operations;
  private final String[] commands;
  private final String[] times;
  private final String[] ids;

  EventColumns(List<Event> events) {
    int n = events.size();
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
      times[i] = e.occurredAt().toString();
      ids[i] = e.id();
    }
  }

  /** The canonical payloads, in event order (shared, not copied). */
  byte[][] payloads() {
    return payloads;
  }

  /**
   * Binds the seven arrays to the statement's parameters from {@code first} on.
   *
   * @return the index of the parameter after them
   * @throws SQLException from the driver
   */
  int bind(Connection c, PreparedStatement ps, int first) throws SQLException {
    int p = first;
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
