package dev.ledger.collections.patchlog;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.google.common.base.Preconditions;
import dev.ledger.collections.CollectionOptions;
import dev.ledger.collections.CollectionStore;
import dev.ledger.collections.Schema;
import dev.ledger.collections.Transaction;
import dev.ledger.collections.TransactionResult;
import dev.ledger.collections.View;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.spi.PatchLogSource;
import java.util.function.Function;

/**
 * The {@link CollectionStore} on a ledger's {@link dev.ledger.core.spi.PatchLog}: one
 * partition is one ledger of the store, kept in memory as a live view that each commit's
 * merge patch updates, so that a transaction costs what it changes. Runs on any store that is
 * both a {@link LedgerStore} and a {@link PatchLogSource} ({@code FileLedgerStore},
 * {@code InMemoryLedgerStore}); the command look-ups of
 * {@link CollectionStore#execute(String, String, Function)} go through the store's
 * {@code Ledger.command}. Thread-safe; see {@link CollectionStore} for transactions, reads
 * and the change feed.
 *
 * <p><b>The partition's state tree</b>, what its patches change and its checkpoints hold:
 * <pre>
 * {
 *   "c":  {"&lt;collection&gt;": {"next": 7,                     ordinal of the next insert
 *                              "docs": {"&lt;key&gt;": {"o": 3,    insertion ordinal
 *                                                   "d": {...}}}}},  the document
 *   "q":  {"&lt;queue&gt;": {"next": 12,                           sequence of the next item
 *                         "items": {"&lt;seq&gt;": item}}},         waiting items
 *   "kv": {"&lt;key-value&gt;": {"&lt;key&gt;": value}}
 * }
 * </pre>
 * A document's {@code <key>} is the canonical JSON array of its key values ({@code ["r-1"]},
 * {@code ["r-1",2]}); a key-value's is the canonical JSON of the key ({@code "\"n\""}). Both
 * encodings are deterministic and injective. Documents hold no null members; numbers are kept
 * in the form the JSON parser reads back, so a checkpoint equals the fold of the journal.
 * Members under other top-level names, and collections, queues and key-values the schema
 * does not declare, are kept as they are: a checkpoint never drops what another version
 * wrote. A transaction's writes become one merge patch of this tree: an insert sets
 * {@code {"o","d"}}, an update patches {@code "d"} by the field diff (nulls for removed
 * fields), a delete nulls the key; a dequeue nulls item sequence numbers, an enqueue adds
 * them; {@code "next"} moves forward and is never reused.
 *
 * <p><b>Checkpoint policy.</b> After a commit, when
 * {@code journalBytesSinceCheckpoint() > max(checkpointFloorBytes, checkpointFraction x data
 * bytes)}, the view is written as the checkpoint of that revision (data bytes: the compact
 * JSON of every document, item and value). A failed checkpoint does not fail the committed
 * transaction; it is logged and the next commit tries again.
 */
public final class PatchLogCollectionStore implements CollectionStore {
  private final Engine engine;
  private final Schema schema;

  private PatchLogCollectionStore(Engine engine, Schema schema) {
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
  public static <S extends LedgerStore & PatchLogSource> PatchLogCollectionStore on(S store,
      Schema schema) {
    return on(store, schema, CollectionOptions.defaults());
  }

  /**
   * A collection store on {@code store}. Documents are mapped with Jackson: {@code java.time}
   * as ISO-8601 strings, unknown properties ignored, then the store's own mapper customizer
   * ({@code LedgerOptions.withMapper}).
   *
   * @param store the ledger store that holds the partitions
   * @param schema what every partition holds
   * @param options transaction and checkpoint settings
   * @param <S> a store that is also a patch log source
   * @return the collection store
   * @throws NullPointerException if an argument is null
   */
  public static <S extends LedgerStore & PatchLogSource> PatchLogCollectionStore on(S store,
      Schema schema, CollectionOptions options) {
    Preconditions.checkNotNull(store, "store");
    Preconditions.checkNotNull(schema, "schema");
    Preconditions.checkNotNull(options, "options");
    ObjectMapper mapper = documentMapper(store.options().mapper());
    java.util.Map<String, java.util.List<String>> indexes = new java.util.TreeMap<>();
    schema.collections().forEach((name, spec) -> {
      if (!spec.indexes().isEmpty()) {
        indexes.put(name, spec.indexes());
      }
    });
    if (!indexes.isEmpty()) {
      store.declareDocumentIndexes(indexes);
    }
    return new PatchLogCollectionStore(new Engine(store, store, schema, mapper, options),
        schema);
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public <R> R execute(String partition, Function<? super Transaction, ? extends R> work) {
    return timedExecute(partition, null, work).value();
  }

  @Override
  public <R> TransactionResult<R> execute(String partition, String commandId,
      Function<? super Transaction, ? extends R> work) {
    Preconditions.checkNotNull(commandId, "commandId");
    return timedExecute(partition, commandId, work);
  }

  private <R> TransactionResult<R> timedExecute(String partition, String commandId,
      Function<? super Transaction, ? extends R> work) {
    CollectionMeters meters = engine.meters;
    if (!meters.recording()) {
      return engine.execute(partition, commandId, work);
    }
    long start = System.nanoTime();
    TransactionResult<R> result;
    try {
      result = engine.execute(partition, commandId, work);
    } catch (RevisionConflictException e) {
      meters.transaction("execute", "conflict", start);
      throw e;
    } catch (RuntimeException | Error e) {
      meters.transaction("execute", CollectionMeters.ERROR, start);
      throw e;
    }
    meters.transaction("execute", result.replayed() ? "replayed" : CollectionMeters.OK, start);
    return result;
  }

  @Override
  public <R> R read(String partition, Function<? super View, ? extends R> work) {
    CollectionMeters meters = engine.meters;
    if (!meters.recording()) {
      return engine.read(partition, work);
    }
    long start = System.nanoTime();
    R result;
    try {
      result = engine.read(partition, work);
    } catch (RuntimeException | Error e) {
      meters.transaction("read", CollectionMeters.ERROR, start);
      throw e;
    }
    meters.transaction("read", CollectionMeters.OK, start);
    return result;
  }

  /** The mapper of documents: the library's settings, then {@code customizer}. */
  static ObjectMapper documentMapper(
      java.util.function.Consumer<? super JsonMapper.Builder> customizer) {
    JsonMapper.Builder builder = JsonMapper.builder()
        .addModule(new JavaTimeModule())
        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
        .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
        .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    customizer.accept(builder);
    return builder.build();
  }
}
