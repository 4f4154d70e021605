package dev.ledger.postgres;

import java.util.ArrayList;
import java.util.List;

/**
 * The SQL text of a commit in one schema, built once per store: the driver keys its cache of
 * server-prepared statements by text, so the same string each time lets the server parse and
 * plan the commit once per connection.
 *
 * <p>A commit's write comes in variants, one per combination of: revision 1 or a later one,
 * the {@link EventColumns.Shape} of its events, and whether it records a command id. A
 * variant names only the tables it writes: a commit of no event or without a command id does
 * not carry an {@code INSERT} that would insert nothing (the server would still open, lock
 * and prepare that table and its index on every commit).
 *
 * @param before reads the head row and a command row in one snapshot; parameters: root id,
 *     root id, command id. Columns: revision, next_sequence, state, digest, the command's
 *     revision, generation, checkpoint revision (the first three and the last two null if
 *     the ledger has no row; the state is that of the checkpoint revision when it is not null,
 *     see {@link HeadState})
 * @param writes the variants of the write, indexed by {@link #index}
 */
record CommitStatements(String before, List<String> writes) {
  static CommitStatements of(PostgresLedgerStore.Tables t) {
    String before = "SELECT l.revision, l.next_sequence, l.state, k.digest, k.revision,"
        + " l.generation, l.checkpoint_revision FROM (VALUES (1)) AS one (x)"
        + " LEFT JOIN " + t.ledgers() + " l ON l.root_id = ?"
        + " LEFT JOIN " + t.commands() + " k ON k.root_id = ? AND k.command_id = ?";
    String first = "INSERT INTO " + t.ledgers() + " (revision, next_sequence, state_version,"
        + " updated_at, state, root_id) VALUES (?, ?, ?, ?, ?, ?)"
        + " ON CONFLICT (root_id) DO NOTHING RETURNING root_id, generation";
    String next = "UPDATE " + t.ledgers() + " SET revision = ?, next_sequence = ?,"
        + " state_version = ?, updated_at = ?, state = ?, checkpoint_revision = NULL,"
        + " journal_bytes = 0 WHERE root_id = ? AND revision = ? AND generation = ?"
        + " RETURNING root_id, generation";
    String[] writes = new String[4 * EventColumns.Shape.values().length];
    for (boolean isFirst : new boolean[] {false, true}) {
      for (EventColumns.Shape shape : EventColumns.Shape.values()) {
        for (boolean command : new boolean[] {false, true}) {
          writes[index(isFirst, shape, command)] = write(t, isFirst ? first : next, shape,
              command);
        }
      }
    }
    return new CommitStatements(before, List.of(writes));
  }

  private static int index(boolean first, EventColumns.Shape shape, boolean command) {
    return ((first ? 1 : 0) * EventColumns.Shape.values().length + shape.ordinal()) * 2
        + (command ? 1 : 0);
  }

  /**
   * The write of revision 1 ({@code first}) or of a later one, for events of {@code shape},
   * recording a command id or not.
   */
  String write(boolean first, EventColumns.Shape shape, boolean command) {
    return writes.get(index(first, shape, command));
  }

  /**
   * The common table expression {@code command_row} that records a command id, only if the
   * CTE {@code head} returned a row. Parameters: the command id, its digest, the revision.
   */
  static String commandCte(PostgresLedgerStore.Tables t) {
    return " command_row AS (INSERT INTO " + t.commands() + " (root_id, command_id, digest,"
        + " revision) SELECT root_id, ?, ?, ? FROM head)";
  }

  /**
   * Two statements sent at once and run in one implicit transaction (autocommit, one Sync):
   * the lock timeout of this transaction, then one statement that moves the head row and,
   * only if that took a row, inserts the commit, its events ({@link EventColumns#insertCte})
   * and, with {@code command}, its command ({@link #commandCte}). It returns one row, the
   * row's generation, if it won, and none otherwise. The notification is not part of it: see
   * {@link CommitNotifier} for why.
   */
  private static String write(PostgresLedgerStore.Tables t, String head,
      EventColumns.Shape shape, boolean command) {
    List<String> ctes = new ArrayList<>();
    ctes.add(" head AS (" + head + ")");
    ctes.add(" commit_row AS (INSERT INTO " + t.commits() + " (root_id, revision, committed_at,"
        + " first_sequence, event_count, record_format, command_id, command_digest,"
        + " state_version, state, patch) SELECT root_id, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM head)");
    if (shape != EventColumns.Shape.NONE) {
      ctes.add(EventColumns.insertCte(t, shape));
    }
    if (command) {
      ctes.add(commandCte(t));
    }
    return "SELECT set_config('lock_timeout', ?, true); WITH" + String.join(",", ctes)
        + " SELECT head.generation FROM head";
  }
}
