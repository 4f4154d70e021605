package dev.ledger.collections.patchlog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.base.Preconditions;
import dev.ledger.collections.Collection;
import dev.ledger.collections.DocumentNotFoundException;
import dev.ledger.collections.DuplicateKeyException;
import dev.ledger.collections.InvalidQueryException;
import dev.ledger.collections.InvalidValueException;
import dev.ledger.collections.Key;
import dev.ledger.collections.Query;
import dev.ledger.collections.QueryResult;
import dev.ledger.collections.Schema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A collection inside one transaction: the view's table under an overlay of this
 * transaction's writes (a key mapped to null is deleted). Each write call is staged whole and
 * published to the overlay only when every item passed its checks, so a refused call leaves
 * the transaction as it was.
 */
final class TxCollection<T> implements Collection<T> {
  private final TxContext tx;
  final Schema.CollectionSpec<T> spec;
  /** The view's table, or null when the partition never held this collection. */
  final DocTable table;
  /** Keys this transaction wrote: the new document, or null when deleted. */
  final Map<String, DocTable.Doc> overlay = new LinkedHashMap<>();
  private long next;
  /**
   * The key arrays {@link #keyOf(JsonNode)} built for this transaction's writes, by their
   * text: the change-feed payloads name the key as JSON, and need not parse it back.
   */
  private final Map<String, ArrayNode> keyNodes = new HashMap<>();
  /**
   * The merge patches this transaction's replacements computed from the view's document to
   * theirs (for the change feed), by key: {@link #patch} reuses one when the overlay still
   * holds that replacement of that view document.
   */
  private final Map<String, Diff> viewDiffs = new HashMap<>();

  /** The merge patch from a view document to the document that replaced it. */
  private record Diff(DocTable.Doc before, DocTable.Doc after, ObjectNode patch) {}

  TxCollection(TxContext tx, Schema.CollectionSpec<T> spec, DocTable table) {
    this.tx = tx;
    this.spec = spec;
    this.table = table;
    this.next = table == null ? 0 : table.next;
  }

  String name() {
    return spec.name();
  }

  /** The ordinal the next inserted document gets, after this transaction's writes. */
  long next() {
    return next;
  }

  /** The document of {@code key} as this transaction sees it, or null. */
  DocTable.Doc current(String key) {
    if (overlay.containsKey(key)) {
      return overlay.get(key);
    }
    return table == null ? null : table.get(key);
  }

  T map(DocTable.Doc doc) {
    return tx.fromTree(spec.name(), doc.tree(), spec.type());
  }

  /** The key of a document tree: the canonical JSON array of its key fields. */
  String keyOf(JsonNode tree) {
    ArrayNode values = Json.NODES.arrayNode(spec.primaryKey().size());
    for (String field : spec.primaryKey()) {
      values.add(scalar(field, tree.get(field)));
    }
    String key = Json.keyText(values);
    keyNodes.put(key, values);
    return key;
  }

  private JsonNode scalar(String field, JsonNode value) {
    if (value == null || value.isNull()) {
      throw new InvalidValueException(tx.partition, spec.name(), "key field '" + field
          + "' is missing");
    }
    if (!value.isTextual() && !value.isNumber() && !value.isBoolean()) {
      throw new InvalidValueException(tx.partition, spec.name(), "key field '" + field
          + "' must be a string, number or boolean, was " + value.getNodeType());
    }
    return value;
  }

  String keyOf(Key key) {
    Preconditions.checkNotNull(key, "key");
    if (key.values().size() != spec.primaryKey().size()) {
      throw new InvalidValueException(tx.partition, spec.name(), "a key has "
          + spec.primaryKey().size() + " values " + spec.primaryKey() + ", got "
          + key.values().size());
    }
    ArrayNode values = Json.NODES.arrayNode(key.values().size());
    for (int i = 0; i < key.values().size(); i++) {
      values.add(scalar(spec.primaryKey().get(i), tx.toTree(spec.name(), "key value",
          key.values().get(i))));
    }
    return Json.keyText(values);
  }

  private ObjectNode document(T item) {
    Preconditions.checkNotNull(item, "a document of collection '%s' is null", spec.name());
    if (!spec.type().isInstance(item)) {
      throw new InvalidValueException(tx.partition, spec.name(), "a document must be a "
          + spec.type().getName() + ", was " + item.getClass().getName());
    }
    JsonNode tree = tx.toTree(spec.name(), "document", item);
    if (!tree.isObject()) {
      throw new InvalidValueException(tx.partition, spec.name(), "a document must map to a "
          + "JSON object, was " + tree.getNodeType());
    }
    return (ObjectNode) tree;
  }

  // ------------------------------------------------------------------ reads

  @Override
  public Optional<T> get(Key key) {
    return tx.engine.meters.timed(spec.name(), "get", () -> {
      tx.checkOpen();
      DocTable.Doc doc = current(keyOf(key));
      return doc == null ? Optional.empty() : Optional.of(map(doc));
    });
  }

  @Override
  public Optional<T> get(Query query) {
    return tx.engine.meters.timed(spec.name(), "get", () -> {
      tx.checkOpen();
      Preconditions.checkNotNull(query, "query");
      Query first = new Query(query.conditions(), query.aggregate(), query.must(), query.sort(),
          1, 0);
      List<DocTable.Doc> docs = QueryRunner.run(tx, this, first).items();
      return docs.isEmpty() ? Optional.empty() : Optional.of(map(docs.get(0)));
    });
  }

  @Override
  public QueryResult<T> query(Query query) {
    return tx.engine.meters.timed(spec.name(), "query", () -> {
      tx.checkOpen();
      Preconditions.checkNotNull(query, "query");
      QueryRunner.Page page = QueryRunner.run(tx, this, query);
      List<T> items = new ArrayList<>(page.items().size());
      for (DocTable.Doc doc : page.items()) {
        items.add(map(doc));
      }
      return new QueryResult<>(items, page.total());
    });
  }

  @Override
  public void project(List<String> fields, Consumer<ObjectNode> action) {
    tx.engine.meters.timed(spec.name(), "project", () -> {
      tx.checkOpen();
      Preconditions.checkNotNull(fields, "fields");
      Preconditions.checkNotNull(action, "action");
      Preconditions.checkArgument(!fields.isEmpty(), "no field to project from collection '%s'",
          spec.name());
      String[] names = new String[fields.size()];
      for (int i = 0; i < names.length; i++) {
        String name = Preconditions.checkNotNull(fields.get(i), "a field name is null");
        for (int j = 0; j < i; j++) {
          Preconditions.checkArgument(!names[j].equals(name),
              "field '%s' named twice to project from collection '%s'", name, spec.name());
        }
        if (name.indexOf('.') >= 0) {
          throw new InvalidQueryException(tx.partition, name, "is not a top-level field of "
              + spec.type().getName() + " (collection '" + name() + "'): only top-level"
              + " fields are projected");
        }
        QueryRunner.check(tx, this, name);
        names[i] = name;
      }
      // Gathered first: the action may write to this collection.
      List<DocTable.Doc> docs = new ArrayList<>();
      if (table != null) {
        for (DocTable.Doc doc : table.inOrder()) {
          if (!overlay.containsKey(doc.key)) {
            docs.add(doc);
          }
        }
      }
      boolean appended = false;
      for (DocTable.Doc doc : overlay.values()) {
        if (doc != null) {
          docs.add(doc);
          appended = true;
        }
      }
      if (appended) {
        docs.sort(java.util.Comparator.comparingLong(d -> d.ordinal));
      }
      for (DocTable.Doc doc : docs) {
        action.accept(doc.project(names));
      }
    });
  }

  @Override
  public long size() {
    tx.checkOpen();
    long size = table == null ? 0 : table.size();
    for (Map.Entry<String, DocTable.Doc> write : overlay.entrySet()) {
      boolean inView = table != null && table.get(write.getKey()) != null;
      if (write.getValue() == null && inView) {
        size--;
      } else if (write.getValue() != null && !inView) {
        size++;
      }
    }
    return size;
  }

  // ------------------------------------------------------------------ writes

  /** Writes of one call, published together. */
  private final class Staged {
    final Map<String, DocTable.Doc> docs = new LinkedHashMap<>();
    final List<Runnable> events = new ArrayList<>();
    final Map<String, Diff> diffs = new HashMap<>();
    long nextOrdinal = next;

    DocTable.Doc current(String key) {
      return docs.containsKey(key) ? docs.get(key) : TxCollection.this.current(key);
    }

    void insert(String key, ObjectNode tree, int bytes) {
      DocTable.Doc doc = new DocTable.Doc(key, nextOrdinal++, tree, bytes);
      docs.put(key, doc);
      events.add(() -> tx.event("collection.insert", payload(key).set("document", tree)));
    }

    void replace(DocTable.Doc before, ObjectNode tree, int bytes) {
      DocTable.Doc after = new DocTable.Doc(before.key, before.ordinal, tree, bytes);
      docs.put(before.key, after);
      ObjectNode patch = Json.diff(before.tree(), tree);
      if (table != null && table.get(before.key) == before) {
        diffs.put(before.key, new Diff(before, after, patch));
      }
      events.add(() -> tx.event("collection.update", payload(before.key).set("patch", patch)));
    }

    void publish() {
      overlay.putAll(docs);
      viewDiffs.putAll(diffs);
      next = nextOrdinal;
      events.forEach(Runnable::run);
    }
  }

  private ObjectNode payload(String key) {
    ObjectNode payload = Json.NODES.objectNode();
    payload.put("collection", spec.name());
    // The event draft copies its payload, so the array is not shared with the event.
    ArrayNode node = keyNodes.get(key);
    payload.set("key", node != null ? node : Json.parse(key));
    return payload;
  }

  @Override
  public void insert(List<T> items) {
    tx.engine.meters.timed(spec.name(), "insert", () -> {
      tx.checkWritable();
      Preconditions.checkNotNull(items, "items");
      Staged staged = new Staged();
      for (T item : items) {
        ObjectNode tree = document(item);
        String key = keyOf(tree);
        int bytes = tx.checkSize(spec.name(), "document " + key, tree);
        if (staged.current(key) != null) {
          throw new DuplicateKeyException(tx.partition, spec.name(), key);
        }
        staged.insert(key, tree, bytes);
      }
      staged.publish();
    });
  }

  @Override
  public List<T> update(List<T> items) {
    return tx.engine.meters.timed(spec.name(), "update", () -> {
      return write(items, null, false);
    });
  }

  @Override
  public List<T> update(List<T> items, List<String> fields) {
    return tx.engine.meters.timed(spec.name(), "update", () -> {
      Preconditions.checkNotNull(fields, "fields");
      return write(items, fields, false);
    });
  }

  @Override
  public void updateFields(List<T> items, List<String> fields) {
    tx.engine.meters.timed(spec.name(), "update", () -> {
      Preconditions.checkNotNull(fields, "fields");
      write(items, fields, false, false);
    });
  }

  @Override
  public List<T> upsert(List<T> items) {
    return tx.engine.meters.timed(spec.name(), "upsert", () -> {
      return write(items, null, true);
    });
  }

  @Override
  public List<T> upsert(List<T> items, List<String> fields) {
    return tx.engine.meters.timed(spec.name(), "upsert", () -> {
      Preconditions.checkNotNull(fields, "fields");
      return write(items, fields, true);
    });
  }

  /** Update or upsert; {@code fields} null replaces whole documents. */
  private List<T> write(List<T> items, List<String> fields, boolean insertMissing) {
    return write(items, fields, insertMissing, true);
  }

  /**
   * Update or upsert; {@code fields} null replaces whole documents. Without {@code mapped},
   * the documents as stored are not mapped back (copied) and null is returned.
   */
  private List<T> write(List<T> items, List<String> fields, boolean insertMissing,
      boolean mapped) {
    tx.checkWritable();
    Preconditions.checkNotNull(items, "items");
    if (fields != null) {
      checkFields(fields);
    }
    Staged staged = new Staged();
    List<ObjectNode> stored = new ArrayList<>(items.size());
    for (T item : items) {
      ObjectNode tree = document(item);
      String key = keyOf(tree);
      DocTable.Doc before = staged.current(key);
      if (before == null) {
        if (!insertMissing) {
          throw new DocumentNotFoundException(tx.partition, spec.name(), key);
        }
        staged.insert(key, tree, tx.checkSize(spec.name(), "document " + key, tree));
        stored.add(tree);
        continue;
      }
      ObjectNode after;
      if (fields == null) {
        after = tree;
      } else {
        // A shallow copy: the fields not named keep the stored nodes, not copies of them.
        // The new tree is installed as shared (DocTable.Doc#shared) when this commits, so a
        // later change copies it first and never reaches the nodes it holds; the old tree
        // leaves the table. Only when the transaction is refused does the old tree stay (and
        // may be merged in place later); trees handed to callers are copies (fromTree).
        // Built in canonical member order (see Json#withoutNulls).
        after = Json.withFields(before.tree(), tree, fields);
      }
      if (!after.equals(before.tree())) {
        // A partial update of a measured document is measured by the fields it names, not
        // written out whole (Json#bytesAfterFields).
        int bytes = fields != null && before.bytes != DocTable.UNMEASURED
            ? Json.bytesAfterFields(before.tree(), before.bytes, after, fields)
            : Json.bytes(after);
        staged.replace(before, after, tx.checkSize(spec.name(), "document " + key, bytes));
      }
      stored.add(after);
    }
    staged.publish();
    if (!mapped) {
      return null;
    }
    List<T> result = new ArrayList<>(stored.size());
    for (ObjectNode tree : stored) {
      result.add(tx.fromTree(spec.name(), tree, spec.type()));
    }
    return result;
  }

  private void checkFields(List<String> fields) {
    for (String field : fields) {
      Preconditions.checkNotNull(field, "a field name is null");
      if (field.contains(".") || tx.engine.paths.resolve(spec.type(), field).isEmpty()) {
        throw new InvalidQueryException(tx.partition, field, "is not a top-level field of "
            + spec.type().getName());
      }
      if (spec.primaryKey().contains(field)) {
        throw new InvalidQueryException(tx.partition, field, "is a primary key field of '"
            + spec.name() + "' and cannot be updated");
      }
    }
  }

  @Override
  public void delete(List<T> items) {
    tx.engine.meters.timed(spec.name(), "delete", () -> {
      tx.checkWritable();
      Preconditions.checkNotNull(items, "items");
      List<String> keys = new ArrayList<>(items.size());
      for (T item : items) {
        keys.add(keyOf(document(item)));
      }
      for (String key : keys) {
        if (current(key) != null) {
          overlay.put(key, null);
          tx.event("collection.delete", payload(key));
        }
      }
    });
  }

  /** This collection's part of the transaction's patch, or empty when it wrote nothing. */
  Optional<ObjectNode> patch() {
    ObjectNode docs = Json.NODES.objectNode();
    for (Map.Entry<String, DocTable.Doc> write : overlay.entrySet()) {
      DocTable.Doc before = table == null ? null : table.get(write.getKey());
      DocTable.Doc after = write.getValue();
      if (after == null) {
        if (before != null) {
          docs.putNull(write.getKey());
        }
      } else if (before == null) {
        ObjectNode entry = docs.putObject(write.getKey());
        entry.set("o", Json.number(after.ordinal));
        entry.set("d", after.tree());
      } else if (before.ordinal != after.ordinal) {
        ObjectNode entry = docs.putObject(write.getKey());
        entry.set("o", Json.number(after.ordinal));
        entry.set("d", Json.diff(before.tree(), after.tree()));
      } else {
        Diff known = viewDiffs.get(write.getKey());
        ObjectNode diff = known != null && known.before() == before && known.after() == after
            ? known.patch() : Json.diff(before.tree(), after.tree());
        if (!diff.isEmpty()) {
          docs.putObject(write.getKey()).set("d", diff);
        }
      }
    }
    boolean moved = next != (table == null ? 0 : table.next);
    if (docs.isEmpty() && !moved) {
      return Optional.empty();
    }
    ObjectNode patch = Json.NODES.objectNode();
    patch.set("next", Json.number(next));
    patch.set("docs", docs);
    return Optional.of(patch);
  }
}
