package dev.ledger.collections;

import java.util.function.Function;

/**
 * Typed collections, FIFO queues and key-values, grouped in partitions and changed together
 * in atomic transactions, on a ledger store. The implementation,
 * {@link dev.ledger.collections.patchlog.PatchLogCollectionStore}, runs on any store that is
 * both a {@code LedgerStore} and a {@code PatchLogSource}: {@code FileLedgerStore} on disk,
 * {@code InMemoryLedgerStore} for tests. The store owns the ledgers; a collection store owns
 * only views and may be dropped at any time (there is nothing to close).
 *
 * <p><b>Partitions.</b> A partition is one ledger: its id is the ledger's root id (validated
 * as one), it is one atomic scope and one storage unit, and unrelated partitions never
 * contend. Its state tree, which checkpoints hold, is documented on the
 * implementation.
 *
 * <p><b>Transactions.</b> {@link #execute} runs a callback over one partition. Its writes
 * become one JSON merge patch against the partition's state, committed through the ledger's
 * patch log as one commit with one journal event per write, the change feed:
 * <pre>
 * collection.insert  {"collection": name, "key": [key values], "document": {...}}
 * collection.update  {"collection": name, "key": [...], "patch": merge patch of the document}
 * collection.delete  {"collection": name, "key": [...]}
 * queue.enqueue      {"queue": name, "seq": n, "item": ...}
 * queue.dequeue      {"queue": name, "seq": n}
 * keyValue.set       {"keyValue": name, "key": key, "value": ...}   (inc and chmax too)
 * keyValue.delete    {"keyValue": name, "key": key}
 * </pre>
 * Read them with the partition's {@code Ledger} ({@code events}, {@code replay},
 * {@code follow}). A callback that writes nothing commits nothing.
 *
 * <p><b>Concurrency.</b> In one store object, transactions of one partition run one at a time
 * against a live view kept in memory; they do not wait for each other's disk writes longer
 * than the commit itself. Against other processes (and other store objects on the same
 * store) they are optimistic: the commit names the revision the callback read, and on a
 * revision conflict the view catches up by reading only the newer journal records and the
 * callback runs again, up to {@link CollectionOptions#attempts} times with a jittered,
 * doubling backoff; then the {@link dev.ledger.core.RevisionConflictException} is thrown.
 * <b>Callbacks must therefore be free of side effects</b> outside the transaction and must
 * not keep its handles. A transaction cannot start inside a callback of a transaction on the
 * same partition in the same thread ({@link IllegalStateException}); a {@link #read} there
 * sees the partition as the transaction found it, without the transaction's writes. Group
 * commit (several transactions in one force) is not done yet.
 *
 * <p><b>Reads.</b> {@link #read} takes neither the ledger's writer lock nor this partition's
 * transaction lock: it first catches the view up to the log when no transaction of this
 * object holds the partition (otherwise it reads the view that transaction keeps current),
 * then runs the callback on a consistent snapshot; a commit's apply to the view waits for
 * the read to end.
 *
 * <p><b>Checkpoints.</b> After a commit, when the journal bytes since the last checkpoint
 * exceed {@link CollectionOptions#checkpointFraction} times the partition's data bytes (and
 * the floor), the view is written as a checkpoint. A cold open loads the checkpoint and folds
 * the records after it.
 *
 * <p><b>Documents</b> are mapped with Jackson (the library's settings: {@code java.time} as
 * ISO-8601 strings, unknown properties ignored, then the store's mapper customizer), stored
 * with null fields removed (a null field reads back as missing). Thread-safe.
 */
public interface CollectionStore {
  /**
   * The schema every partition has.
   *
   * @return the schema
   */
  Schema schema();

  /**
   * Runs {@code work} as one transaction on a partition and commits its writes atomically.
   * If the callback throws, nothing is written and the exception propagates. The callback may
   * run more than once (see the class comment): after a revision conflict, and after a
   * backend failure that says it may pass and wrote nothing (a
   * {@link dev.ledger.core.spi.RetryableFailure}, such as a database's serialization failure).
   * A failure whose outcome is unknown is not retried here: it propagates.
   *
   * @param partition the partition id, a valid root id
   * @param work the callback; side-effect free
   * @param <R> what it returns
   * @return what the callback returned in the run that committed
   * @throws dev.ledger.core.InvalidIdentifierException if the partition id is not valid
   * @throws IllegalStateException if called inside a transaction on the same partition
   * @throws dev.ledger.core.RevisionConflictException if every attempt met a conflict
   * @throws CollectionException for refused data (nothing written)
   * @throws dev.ledger.core.LimitExceededException if a document or the commit is too large
   * @throws dev.ledger.core.LedgerException for the store's own failures
   */
  <R> R execute(String partition, Function<? super Transaction, ? extends R> work);

  /**
   * Runs a transaction at most once per command id: if a commit of this partition already
   * carries {@code commandId}, the callback does not run, nothing is written, and the
   * recorded revision is returned as a replay. Safe to retry after an unknown outcome (a
   * crash, a timeout). A transaction with a command id commits even when it writes nothing,
   * so that its command is recorded. A backend failure that says it may pass (a
   * {@link dev.ledger.core.spi.RetryableFailure}) is retried like a revision conflict, even
   * when its outcome is unknown: the retry then replays the command if it had landed.
   *
   * @param partition the partition id, a valid root id
   * @param commandId the caller's id of this command, 1 to 200 characters
   * @param work the callback; side-effect free
   * @param <R> what it returns
   * @return the callback's value and revision, or a replay
   * @throws IllegalArgumentException if the command id is empty or too long
   * @throws IllegalStateException if called inside a transaction on the same partition
   * @throws dev.ledger.core.InvalidIdentifierException if the partition id is not valid
   * @throws dev.ledger.core.RevisionConflictException if every attempt met a conflict
   * @throws CollectionException for refused data (nothing written)
   * @throws dev.ledger.core.LedgerException for the store's own failures
   */
  <R> TransactionResult<R> execute(String partition, String commandId,
      Function<? super Transaction, ? extends R> work);

  /**
   * Runs {@code work} on a consistent, read-only snapshot of a partition (see the class
   * comment for what it sees). Writes through the handles throw
   * {@link IllegalStateException}.
   *
   * @param partition the partition id, a valid root id
   * @param work the callback
   * @param <R> what it returns
   * @return what the callback returned
   * @throws dev.ledger.core.InvalidIdentifierException if the partition id is not valid
   * @throws CollectionException for a refused query or name
   * @throws dev.ledger.core.LedgerException for the store's own failures
   */
  <R> R read(String partition, Function<? super View, ? extends R> work);
}
