package dev.ledger.core;

/**
 * Told of each commit a store acknowledges, for mirrors and metrics that must never hold a
 * commit back ({@link dev.ledger.core.fs.TraceSink} is one). Registered with a store's
 * {@code addCommitListener} ({@link dev.ledger.core.fs.FileLedgerStore#addCommitListener},
 * {@link dev.ledger.core.memory.InMemoryLedgerStore#addCommitListener}).
 *
 * <p><b>When it is called.</b> Once per commit that this store made durable, after it is
 * durable and before the commit returns; for one ledger, calls come in commit order, one at a
 * time. The in-memory store calls on the committing thread under the ledger's writer lock; the
 * file store, which forces several commits of a ledger at once (group commit), calls on the
 * thread that made the force (the committing thread or another committer of the same ledger
 * in this store), after the writer lock was let go. Not for a replayed command (nothing was
 * written), and
 * not for commits made by other stores or processes on the same directory. An implementation
 * must return at once and never block (hand the result to another thread); whatever it
 * throws is caught and logged by the store, and the commit still succeeds.
 *
 * <p><b>Not durable.</b> The commit is acknowledged whatever the listener does, and a crash
 * after the commit's force but before or during the call means the listener never hears of
 * it. The journal is the record; a listener is a best-effort view of it.
 */
@FunctionalInterface
public interface CommitListener {
  /**
   * A commit was made durable.
   *
   * @param result what the commit recorded ({@code replayed()} is false)
   */
  void committed(CommitResult result);
}
