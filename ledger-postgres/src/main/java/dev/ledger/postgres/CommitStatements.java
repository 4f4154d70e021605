package dev.ledger.postgres;

/**
 * The SQL text of a commit in one schema, built once per store: the driver keys its cache of
 * server-prepared statements by text, so the same string each time lets the server parse and
 * plan the commit once per connection.
 *
 * @param before reads the head row and a command row in one snapshot; parameters: root id,
 *     root id, command id. Columns: revision, next_sequence, state, digest, the command's
 *     revision, generation, checkpoint revision (the first three and the last two null if
 *     the ledger has no row; the state is that of the checkpoint revision when it is not null,
 *     see {@link HeadState})
 * @param writeFirst the write of revision 1 (see {@link #write})
 * @param writeNext the write of a later revision, guarded by the previous revision and the
 *     generation
 */
record CommitStatements(String before, String writeFirst, String writeNext) {
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
    return new CommitStatements(before, write(t, first), write(t, next));
  }

  /**
   * Two statements sent at once and run in one implicit transaction (autocommit, one Sync):
   * the lock timeout of this transaction, then one statement that moves the head row and,
   * only if that took a row, inserts the commit, its events (from arrays, any number) and its
   * command. It returns one row, the row's generation, if it won, and none otherwise. The
   * notification is not part of it: see {@link CommitNotifier} for why.
   */
  private static String write(PostgresLedgerStore.Tables t, String head) {
    return "SELECT set_config('lock_timeout', ?, true); "
        + "WITH head AS (" + head + "),"
        + " commit_row AS (INSERT INTO " + t.commits() + " (root_id, revision, committed_at,"
        + " first_sequence, event_count, record_format, command_id, command_digest,"
        + " state_version, state, patch) SELECT root_id, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM head),"
        + " event_rows AS (INSERT INTO " + t.events() + " (root_id, sequence, revision, type,"
        + " payload, operation_id, command_id, occurred_at, id)"
        + " SELECT head.root_id, e.sequence, ?, e.type, e.payload, e.operation_id, e.command_id,"
        + " e.occurred_at, e.id FROM head, unnest(?::bigint[], ?::text[], ?::bytea[], ?::text[],"
        + " ?::text[], ?::text[], ?::text[]) AS e (sequence, type, payload, operation_id,"
        + " command_id, occurred_at, id)),"
        + " command_row AS (INSERT INTO " + t.commands() + " (root_id, command_id, digest,"
        + " revision) SELECT root_id, ?, ?, ? FROM head WHERE ?::text IS NOT NULL)"
        + " SELECT head.generation FROM head";
  }
}
