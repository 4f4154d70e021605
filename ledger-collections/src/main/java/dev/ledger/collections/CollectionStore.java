package dev.ledger.collections;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.google.common.base.Preconditions;
import dev.ledger.collections.internal.Engine;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.spi.PatchLogSource;
import java.util.function.Function;

/**
 * Typed collections, FIFO queues and key-values, grouped in partitions and changed together
 * in atomic transactions, on any store that is both a {@link LedgerStore} and a
 * {@link PatchLogSource}: {@code FileLedgerStore} on disk, {@code InMemoryLedgerStore} for
 * tests. The store owns the ledgers; this object owns only views and may be dropped at any
 * time (there is nothing to close).
 *
 * <p><b>Partitions.</b> A partition is one ledger: its id is the ledger's root id (validated
 * as one), it is one atomic scope and one storage unit, and unrelated partitions never
 * contend. Its state tree, which checkpoints hold, is documented on the view class
 * ({@code {"c": collections, "q": queues, "kv": key-values}}).
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
 * not keep its handles. Group commit (several transactions in one force) is not done yet.
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
public final class CollectionStore {
  private final Engine engine;
  private final Schema schema;

  private CollectionStore(Engine engine, Schema schema) {
    this.engine = engine;
    this.schema = schema;
  }

  /**
   * A collection store with default options on {@code store}.
   *
   * @param store the ledger store that holds the partitions
   * @param schema what every partition holds
   * @param <S> a store that is also a patch log source
   * @return the collection store
   * @throws NullPointerException if an argument is null
   */
  public static <S extends LedgerStore & PatchLogSource> CollectionStore on(S store,
      Schema schema) {
    return on(store, schema, CollectionOptions.defaults());
  }

  /**
   * A collection store on {@code store}.
   *
   * @param store the ledger store that holds the partitions
   * @param schema what every partition holds
   * @param options transaction and checkpoint settings
   * @param <S> a store that is also a patch log source
   * @return the collection store
   * @throws NullPointerException if an argument is null
   */
  public static <S extends LedgerStore & PatchLogSource> CollectionStore on(S store,
      Schema schema, CollectionOptions options) {
    Preconditions.checkNotNull(store, "store");
    Preconditions.checkNotNull(schema, "schema");
    Preconditions.checkNotNull(options, "options");
    JsonMapper.Builder builder = JsonMapper.builder()
        .addModule(new JavaTimeModule())
        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
        .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
        .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    store.options().mapper().accept(builder);
    ObjectMapper mapper = builder.build();
    return new CollectionStore(new Engine(store, store, schema, mapper, options), schema);
  }

  /**
   * The schema every partition has.
   *
   * @return the schema
   */
  public Schema schema() {
    return schema;
  }

  /**
   * Runs {@code work} as one transaction on a partition and commits its writes atomically.
   * If the callback throws, nothing is written and the exception propagates. The callback may
   * run more than once (see the class comment).
   *
   * @param partition the partition id, a valid root id
   * @param work the callback; side-effect free
   * @param <R> what it returns
   * @return what the callback returned in the run that committed
   * @throws dev.ledger.core.InvalidIdentifierException if the partition id is not valid
   * @throws dev.ledger.core.RevisionConflictException if every attempt met a conflict
   * @throws CollectionException for refused data (nothing written)
   * @throws dev.ledger.core.LimitExceededException if a document or the commit is too large
   * @throws dev.ledger.core.LedgerException for the store's own failures
   */
  public <R> R execute(String partition, Function<? super Transaction, ? extends R> work) {
    return engine.execute(partition, null, work).value();
  }

  /**
   * Runs a transaction at most once per command id: if a commit of this partition already
   * carries {@code commandId}, the callback does not run, nothing is written, and the
   * recorded revision is returned as a replay. Safe to retry after an unknown outcome (a
   * crash, a timeout). A transaction with a command id commits even when it writes nothing,
   * so that its command is recorded.
   *
   * @param partition the partition id, a valid root id
   * @param commandId the caller's id of this command, 1 to 200 characters
   * @param work the callback; side-effect free
   * @param <R> what it returns
   * @return the callback's value and revision, or a replay
   * @throws IllegalArgumentException if the command id is empty or too long
   * @throws dev.ledger.core.InvalidIdentifierException if the partition id is not valid
   * @throws dev.ledger.core.RevisionConflictException if every attempt met a conflict
   * @throws CollectionException for refused data (nothing written)
   * @throws dev.ledger.core.LedgerException for the store's own failures
   */
  public <R> TransactionResult<R> execute(String partition, String commandId,
      Function<? super Transaction, ? extends R> work) {
    Preconditions.checkNotNull(commandId, "commandId");
    return engine.execute(partition, commandId, work);
  }

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
  public <R> R read(String partition, Function<? super View, ? extends R> work) {
    return engine.read(partition, work);
  }
}
