package dev.ledger.collections.patchlog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.base.Preconditions;
import dev.ledger.collections.InvalidValueException;
import dev.ledger.collections.Schema;
import dev.ledger.collections.Transaction;
import dev.ledger.collections.UnknownCollectionException;
import dev.ledger.core.EventDraft;
import dev.ledger.core.LimitExceededException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One transaction (or, read-only, one read) over a partition's view: hands out the
 * collection, queue and key-value handles, each keeping its writes in an overlay on the view,
 * and at the end gathers their writes into one merge patch and the change-feed events, in
 * the order the writes were made. The view does not change while it runs (the partition's
 * writer lock, or the view's read lock, is held). Confined to the callback's thread.
 */
final class TxContext implements Transaction {
  final Engine engine;
  final String partition;
  final PartitionView view;
  final boolean writable;
  private boolean open = true;
  private final Map<String, TxCollection<?>> collections = new LinkedHashMap<>();
  private final Map<String, TxQueue<?>> queues = new LinkedHashMap<>();
  private final Map<String, TxKeyValue<?, ?>> keyValues = new LinkedHashMap<>();
  private final List<EventDraft> events = new ArrayList<>();

  TxContext(Engine engine, String partition, PartitionView view, boolean writable) {
    this.engine = engine;
    this.partition = partition;
    this.view = view;
    this.writable = writable;
  }

  @Override
  public String partition() {
    return partition;
  }

  @Override
  public long revision() {
    return view.revision;
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T> TxCollection<T> collection(String name, Class<T> type) {
    checkOpen();
    Preconditions.checkNotNull(name, "name");
    Preconditions.checkNotNull(type, "type");
    Schema.CollectionSpec<?> spec = engine.schema.collections().get(name);
    if (spec == null) {
      throw new UnknownCollectionException(partition, name, "is not a declared collection");
    }
    if (spec.type() != type) {
      throw new UnknownCollectionException(partition, name, "is declared with document type "
          + spec.type().getName() + ", not " + type.getName());
    }
    return (TxCollection<T>) collections.computeIfAbsent(name,
        n -> new TxCollection<>(this, (Schema.CollectionSpec<T>) spec, view.collections.get(n)));
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T> TxQueue<T> queue(String name, Class<T> type) {
    checkOpen();
    Preconditions.checkNotNull(name, "name");
    Preconditions.checkNotNull(type, "type");
    Schema.QueueSpec<?> spec = engine.schema.queues().get(name);
    if (spec == null) {
      throw new UnknownCollectionException(partition, name, "is not a declared queue");
    }
    if (spec.type() != type) {
      throw new UnknownCollectionException(partition, name, "is declared with item type "
          + spec.type().getName() + ", not " + type.getName());
    }
    return (TxQueue<T>) queues.computeIfAbsent(name,
        n -> new TxQueue<>(this, n, type, view.queues.get(n)));
  }

  @Override
  @SuppressWarnings("unchecked")
  public <K, V> TxKeyValue<K, V> keyValue(String name, Class<K> keyType, Class<V> valueType) {
    checkOpen();
    Preconditions.checkNotNull(name, "name");
    Preconditions.checkNotNull(keyType, "keyType");
    Preconditions.checkNotNull(valueType, "valueType");
    Schema.KeyValueSpec<?, ?> spec = engine.schema.keyValues().get(name);
    if (spec == null) {
      throw new UnknownCollectionException(partition, name, "is not a declared key-value");
    }
    if (spec.keyType() != keyType || spec.valueType() != valueType) {
      throw new UnknownCollectionException(partition, name, "is declared with types "
          + spec.keyType().getName() + " -> " + spec.valueType().getName() + ", not "
          + keyType.getName() + " -> " + valueType.getName());
    }
    return (TxKeyValue<K, V>) keyValues.computeIfAbsent(name,
        n -> new TxKeyValue<>(this, n, keyType, valueType, view.keyValues.get(n)));
  }

  /** The handle of collection {@code name} this transaction wrote through. */
  TxCollection<?> written(String name) {
    TxCollection<?> collection = collections.get(name);
    Preconditions.checkState(collection != null, "collection '%s' was not written", name);
    return collection;
  }

  /** The handle of queue {@code name} this transaction wrote through. */
  TxQueue<?> writtenQueue(String name) {
    TxQueue<?> queue = queues.get(name);
    Preconditions.checkState(queue != null, "queue '%s' was not written", name);
    return queue;
  }

  void checkOpen() {
    Preconditions.checkState(open, "the transaction or view of partition '%s' is over: "
        + "use its handles only inside the callback", partition);
  }

  void checkWritable() {
    checkOpen();
    Preconditions.checkState(writable, "a read of partition '%s' cannot write", partition);
  }

  void close() {
    open = false;
  }

  void event(String type, ObjectNode payload) {
    events.add(new EventDraft(type, payload, null, null));
  }

  List<EventDraft> events() {
    return events;
  }

  /**
   * The whole documents this transaction leaves for every key it wrote (null for a deleted
   * key): what a backend's documents table stores beside the patch.
   */
  List<dev.ledger.core.spi.DocumentRow> documentRows() {
    List<dev.ledger.core.spi.DocumentRow> rows = new ArrayList<>();
    collections.forEach((name, coll) -> coll.overlay.forEach((key, doc) -> rows.add(
        new dev.ledger.core.spi.DocumentRow(name, key, doc == null ? 0 : doc.ordinal,
            doc == null ? null : doc.tree()))));
    return rows;
  }

  /** The writes as one merge patch of the state tree; empty object when nothing changed. */
  ObjectNode patch() {
    ObjectNode patch = Json.NODES.objectNode();
    ObjectNode c = Json.NODES.objectNode();
    collections.forEach((name, coll) -> coll.patch().ifPresent(p -> c.set(name, p)));
    if (!c.isEmpty()) {
      patch.set("c", c);
    }
    ObjectNode q = Json.NODES.objectNode();
    queues.forEach((name, queue) -> queue.patch().ifPresent(p -> q.set(name, p)));
    if (!q.isEmpty()) {
      patch.set("q", q);
    }
    ObjectNode kv = Json.NODES.objectNode();
    keyValues.forEach((name, values) -> values.patch().ifPresent(p -> kv.set(name, p)));
    if (!kv.isEmpty()) {
      patch.set("kv", kv);
    }
    return patch;
  }

  /** {@code value} as a JSON tree, nulls removed, within the size limit. */
  JsonNode toTree(String name, String what, Object value) {
    if (engine.libraryMapper) {
      JsonNode copied = Json.plainTree(value);
      if (copied == null) {
        try {
          copied = Json.canonicalTree(engine.mapper, engine.treeWriter, value);
        } catch (IllegalArgumentException e) {
          throw new InvalidValueException(partition, name, what + " cannot be mapped to JSON: "
              + e.getMessage());
        }
      }
      if (copied != null) {
        if (copied.isNull()) {
          throw new InvalidValueException(partition, name, what + " maps to null");
        }
        return copied;
      }
    }
    JsonNode tree;
    try {
      tree = engine.mapper.valueToTree(value);
    } catch (IllegalArgumentException e) {
      throw new InvalidValueException(partition, name, what + " cannot be mapped to JSON: "
          + e.getMessage());
    }
    if (tree == null || tree.isNull() || tree.isMissingNode()) {
      throw new InvalidValueException(partition, name, what + " maps to null");
    }
    try {
      return Json.withoutNulls(tree);
    } catch (IllegalArgumentException e) {
      throw new InvalidValueException(partition, name, what + " cannot be mapped to JSON: "
          + e.getMessage());
    }
  }

  /** Refuses a value larger than the document limit. */
  int checkSize(String name, String what, JsonNode tree) {
    return checkSize(name, what, Json.bytes(tree));
  }

  /** Refuses a value of {@code bytes} (its compact JSON size) larger than the limit. */
  int checkSize(String name, String what, int bytes) {
    if (bytes > engine.options.maxDocumentBytes()) {
      throw new LimitExceededException(partition, what + " of '" + name + "'",
          engine.options.maxDocumentBytes(), bytes);
    }
    return bytes;
  }

  /**
   * Maps a stored tree back to the caller's type. A caller asking for a tree type gets a copy:
   * Jackson hands back the stored tree itself, and a caller changing it would change the view
   * (and documents sharing its subtrees) without a commit.
   */
  <T> T fromTree(String name, JsonNode tree, Class<T> type) {
    if (type.isInstance(tree)) {
      return type.cast(tree.deepCopy());
    }
    try {
      return engine.readerFor(type).readValue(tree);
    } catch (IOException | IllegalArgumentException e) {
      throw new InvalidValueException(partition, name, "a stored value does not map to "
          + type.getName() + ": " + e.getMessage());
    }
  }
}
