package dev.ledger.collections.patchlog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.collections.Schema;
import dev.ledger.core.internal.json.CanonicalWriter;
import dev.ledger.core.spi.LoggedCommit;
import dev.ledger.core.spi.RawState;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The live state of one partition, as of {@link #revision}: every collection, queue and
 * key-value, updated by applying each commit's merge patch (cost: the patch), and written
 * whole as a checkpoint tree. Not thread-safe: {@link Partition} guards it.
 *
 * <p>The state tree is documented on {@link PatchLogCollectionStore}.
 */
final class PartitionView {
  private final Schema schema;
  long revision;
  final Map<String, DocTable> collections = new TreeMap<>();
  final Map<String, ItemTable> queues = new TreeMap<>();
  final Map<String, Map<String, JsonNode>> keyValues = new TreeMap<>();
  private final Map<String, Long> valueBytes = new HashMap<>();
  private long kvBytes;
  private ObjectNode extra = Json.NODES.objectNode();
  /** True while {@link #load} folds a checkpoint: new documents take its trees as they are. */
  private boolean adopting;
  /** True from {@link #deferIndexes} to {@link #buildIndexes}: tables keep no indexes. */
  private boolean deferring;

  PartitionView(Schema schema) {
    this.schema = schema;
  }

  /** Folds one commit read from the log. */
  void apply(LoggedCommit commit) {
    if (commit.state() != null) {
      collections.clear();
      queues.clear();
      keyValues.clear();
      valueBytes.clear();
      kvBytes = 0;
      extra = Json.NODES.objectNode();
      applyPatch(commit.state(), commit.revision());
    } else {
      applyPatch(commit.patch(), commit.revision());
    }
  }

  /**
   * Replaces the whole view with a checkpointed state. The checkpoint's document trees are
   * taken as they are, not copied (a cold open then builds no second tree of the partition):
   * the tree is the log's and must not be mutated, so such documents are marked shared and
   * copied before their first change (see {@link DocTable#patch}).
   */
  void load(JsonNode state, long atRevision) {
    adopting = true;
    try {
      apply(new LoggedCommit(Math.max(atRevision, 1), java.time.Instant.EPOCH, 0, state, null,
          List.of(), null));
    } finally {
      adopting = false;
    }
    revision = atRevision;
  }

  /**
   * Replaces the whole view with a checkpointed state read as bytes ({@link StateScan}): the
   * documents stay the checkpoint's bytes until they are used. The view must be empty.
   *
   * @throws dev.ledger.core.CorruptLedgerException naming the checkpoint file if the bytes
   *     are not JSON
   */
  void load(RawState state) {
    StateScan.load(this, state);
    revision = state.revision();
  }

  /** From here to {@link #stopAdopting}, new documents take the trees they are given. */
  void startAdopting() {
    adopting = true;
  }

  void stopAdopting() {
    adopting = false;
  }

  /** The table of collection {@code name}, created empty if there is none. */
  DocTable table(String name) {
    return collections.computeIfAbsent(name, this::newTable);
  }

  /** Puts a checkpoint's document entry ({@code {"d": ..., "o": ...}}) as a tree. */
  void adoptDoc(DocTable table, String key, JsonNode entry) {
    applyDoc(table, key, entry);
  }

  /** Applies a merge patch of the state tree; the view is then at {@code newRevision}. */
  void applyPatch(JsonNode patch, long newRevision) {
    for (Map.Entry<String, JsonNode> section : patch.properties()) {
      JsonNode value = section.getValue();
      switch (section.getKey()) {
        case "c" -> applyCollections(value);
        case "q" -> applyQueues(value);
        case "kv" -> applyKeyValues(value);
        default -> {
          ObjectNode one = Json.NODES.objectNode();
          one.set(section.getKey(), value);
          extra = (ObjectNode) Json.merge(extra, one);
        }
      }
    }
    revision = newRevision;
  }

  /**
   * Applies this store's own commit: {@code patch}, which {@code tx} wrote against this view.
   * The view ends as {@link #applyPatch} would leave it, but the collections' documents and
   * the queues' items are installed as the transaction holds them (already canonical, without
   * nulls, and measured), not merged again from the patch and measured a second time.
   */
  void applyOwn(TxContext tx, JsonNode patch, long newRevision) {
    for (Map.Entry<String, JsonNode> section : patch.properties()) {
      if (section.getKey().equals("q")) {
        for (Map.Entry<String, JsonNode> entry : section.getValue().properties()) {
          tx.writtenQueue(entry.getKey()).install(
              queues.computeIfAbsent(entry.getKey(), n -> new ItemTable()));
        }
        continue;
      }
      if (!section.getKey().equals("c")) {
        ObjectNode one = Json.NODES.objectNode();
        one.set(section.getKey(), section.getValue());
        applyPatch(one, newRevision);
        continue;
      }
      for (Map.Entry<String, JsonNode> entry : section.getValue().properties()) {
        TxCollection<?> written = tx.written(entry.getKey());
        DocTable table = collections.computeIfAbsent(entry.getKey(), this::newTable);
        for (Map.Entry<String, DocTable.Doc> write : written.overlay.entrySet()) {
          DocTable.Doc doc = write.getValue();
          if (doc == null) {
            table.remove(write.getKey());
          } else {
            // The patch holds this tree (or parts of it) too.
            doc.shared = true;
            table.put(doc);
          }
        }
        table.next = written.next();
      }
    }
    revision = newRevision;
  }

  private DocTable newTable(String name) {
    Schema.CollectionSpec<?> spec = schema.collections().get(name);
    DocTable table = new DocTable(spec == null ? List.of() : spec.indexes());
    if (deferring) {
      table.deferIndexes();
    }
    return table;
  }

  /**
   * Stops maintaining the collections' secondary indexes until {@link #buildIndexes}: for a
   * cold open, which loads a checkpoint and folds the journal after it before anything reads
   * the view, so each index is built once from the documents as they end up instead of being
   * updated by every document put and every patch. The view must not be queried meanwhile.
   */
  void deferIndexes() {
    deferring = true;
    collections.values().forEach(DocTable::deferIndexes);
  }

  /** Builds the indexes deferred by {@link #deferIndexes}, and maintains them from then on. */
  void buildIndexes() {
    deferring = false;
    collections.values().forEach(DocTable::buildIndexes);
  }

  private void applyCollections(JsonNode patch) {
    if (!patch.isObject()) {
      collections.clear();
      return;
    }
    for (Map.Entry<String, JsonNode> entry : patch.properties()) {
      String name = entry.getKey();
      JsonNode tp = entry.getValue();
      if (!tp.isObject()) {
        collections.remove(name);
        continue;
      }
      DocTable table = collections.computeIfAbsent(name, this::newTable);
      JsonNode docs = tp.get("docs");
      if (docs != null && !docs.isObject()) {
        long next = table.next;
        table = newTable(name);
        table.next = next;
        collections.put(name, table);
      } else if (docs != null) {
        for (Map.Entry<String, JsonNode> doc : docs.properties()) {
          applyDoc(table, doc.getKey(), doc.getValue());
        }
      }
      JsonNode next = tp.get("next");
      if (next != null && next.isIntegralNumber()) {
        table.next = next.longValue();
      }
    }
  }

  private void applyDoc(DocTable table, String key, JsonNode patch) {
    if (patch.isNull()) {
      table.remove(key);
      return;
    }
    DocTable.Doc existing = table.get(key);
    JsonNode ordinal = patch.get("o");
    JsonNode body = patch.get("d");
    if (existing == null || (ordinal != null && ordinal.longValue() != existing.ordinal)) {
      if (existing != null) {
        table.remove(key);
      }
      JsonNode tree;
      boolean adopted = false;
      if (existing == null && adopting && body != null && body.isObject()
          && !Json.hasNullMember(body)) {
        // What the merge below would build, node for node, without building it; the tree
        // stays the checkpoint's, so it is marked shared (copied before any change).
        tree = body;
        adopted = true;
      } else {
        // A shared tree (see DocTable.Doc#shared) is copied before the merge changes it.
        tree = Json.merge(existing == null ? null
            : existing.shared ? existing.tree().deepCopy() : existing.tree(), body == null
            ? Json.NODES.objectNode() : body);
      }
      ObjectNode doc = tree != null && tree.isObject() ? (ObjectNode) tree
          : Json.NODES.objectNode();
      long o = ordinal != null ? ordinal.longValue() : table.next;
      DocTable.Doc added = new DocTable.Doc(key, o, doc, DocTable.UNMEASURED);
      added.shared = adopted;
      table.put(added);
    } else if (body != null) {
      table.patch(existing, body);
    }
  }

  private void applyQueues(JsonNode patch) {
    if (!patch.isObject()) {
      queues.clear();
      return;
    }
    for (Map.Entry<String, JsonNode> entry : patch.properties()) {
      JsonNode qp = entry.getValue();
      if (!qp.isObject()) {
        queues.remove(entry.getKey());
        continue;
      }
      ItemTable queue = queues.computeIfAbsent(entry.getKey(), n -> new ItemTable());
      JsonNode items = qp.get("items");
      if (items != null && !items.isObject()) {
        long next = queue.next;
        queue = new ItemTable();
        queue.next = next;
        queues.put(entry.getKey(), queue);
      } else if (items != null) {
        for (Map.Entry<String, JsonNode> item : items.properties()) {
          long seq = Long.parseLong(item.getKey());
          if (item.getValue().isNull()) {
            queue.remove(seq);
          } else {
            ItemTable.Item old = queue.items.get(seq);
            queue.put(seq, Json.merge(old == null ? null : old.value().deepCopy(),
                item.getValue()));
          }
        }
      }
      JsonNode next = qp.get("next");
      if (next != null && next.isIntegralNumber()) {
        queue.next = next.longValue();
      }
    }
  }

  private void applyKeyValues(JsonNode patch) {
    if (!patch.isObject()) {
      keyValues.clear();
      valueBytes.clear();
      kvBytes = 0;
      return;
    }
    for (Map.Entry<String, JsonNode> entry : patch.properties()) {
      String name = entry.getKey();
      if (!entry.getValue().isObject()) {
        Map<String, JsonNode> dropped = keyValues.remove(name);
        if (dropped != null) {
          for (String key : dropped.keySet()) {
            kvBytes -= valueBytes.remove(name + '\u0000' + key);
          }
        }
        continue;
      }
      Map<String, JsonNode> values = keyValues.computeIfAbsent(name, n -> new HashMap<>());
      for (Map.Entry<String, JsonNode> kv : entry.getValue().properties()) {
        String id = name + '\u0000' + kv.getKey();
        Long before = valueBytes.remove(id);
        if (before != null) {
          kvBytes -= before;
        }
        if (kv.getValue().isNull()) {
          values.remove(kv.getKey());
        } else {
          JsonNode old = values.get(kv.getKey());
          JsonNode value = Json.merge(old == null ? null : old.deepCopy(), kv.getValue());
          values.put(kv.getKey(), value);
          long size = Json.bytes(value);
          valueBytes.put(id, size);
          kvBytes += size;
        }
      }
    }
  }

  /** Bytes of the documents, items and values, as compact JSON. */
  long dataBytes() {
    long total = kvBytes;
    for (DocTable table : collections.values()) {
      total += table.bytes();
    }
    for (ItemTable queue : queues.values()) {
      total += queue.bytes();
    }
    return total;
  }

  /**
   * The canonical JSON of {@link #toTree}, as it sits in a checkpoint (the state inside the
   * checkpoint's object, for the nesting limit), written without building the tree: the
   * documents still as a checkpoint's bytes are copied, not parsed, and so are those whose
   * tree did not change since the last call wrote it ({@link DocTable#keepWritten}: the
   * view keeps that call's output array, about one state's size, while any of its documents
   * is unchanged). Call as the partition's writer (its writer lock held). Read it at once.
   *
   * @return the bytes, or null if the state holds a node kind the canonical writer does not
   *     handle (the caller writes {@link #toTree} instead)
   * @throws IllegalArgumentException if a container is nested deeper than a reader accepts
   */
  byte[] toCanonicalBytes() {
    long data = dataBytes();
    CanonicalWriter out = new CanonicalWriter(
        (int) Math.min(Integer.MAX_VALUE - 16, data + data / 8 + 4096));
    // Sections in canonical order: the others' names with c, kv and q, sorted.
    TreeMap<String, JsonNode> others = new TreeMap<>();
    extra.properties().forEach(e -> others.put(e.getKey(), e.getValue()));
    if (!collections.isEmpty()) {
      others.put("c", null);
    }
    if (!keyValues.isEmpty() || !queues.isEmpty()) {
      ObjectNode rest = toTreeWithout();
      rest.properties().forEach(e -> others.put(e.getKey(), e.getValue()));
    }
    out.raw('{');
    boolean first = true;
    for (Map.Entry<String, JsonNode> section : others.entrySet()) {
      if (!first) {
        out.raw(',');
      }
      first = false;
      out.string(section.getKey());
      out.raw(':');
      if (section.getValue() != null) {
        if (!out.tree(section.getValue(), 2)) {
          collections.values().forEach(DocTable::forgetWritten);
          return null;
        }
        continue;
      }
      out.raw('{');
      boolean firstTable = true;
      for (Map.Entry<String, DocTable> table : collections.entrySet()) {
        if (!firstTable) {
          out.raw(',');
        }
        firstTable = false;
        out.string(table.getKey());
        out.raw(':');
        // Inside the checkpoint, the state and "c".
        if (!table.getValue().writeTo(out, 3)) {
          collections.values().forEach(DocTable::forgetWritten);
          return null;
        }
      }
      out.raw('}');
    }
    out.raw('}');
    // The documents written from trees keep their bytes in the writer's array, which is never
    // handed out (a copy is): the next checkpoint copies those of unchanged trees.
    collections.values().forEach(table -> table.keepWritten(out.array()));
    return java.util.Arrays.copyOf(out.array(), out.size());
  }

  /** The key-value and queue sections of {@link #toTree}, without the others. */
  private ObjectNode toTreeWithout() {
    ObjectNode root = Json.NODES.objectNode();
    if (!keyValues.isEmpty()) {
      ObjectNode kv = root.putObject("kv");
      keyValues.forEach((name, values) -> {
        ObjectNode node = kv.putObject(name);
        new TreeMap<>(values).forEach(node::set);
      });
    }
    if (!queues.isEmpty()) {
      ObjectNode q = root.putObject("q");
      queues.forEach((name, queue) -> q.set(name, queue.toTree()));
    }
    return root;
  }

  /** The whole state tree (see the class comment); shares the view's nodes, read it at once. */
  ObjectNode toTree() {
    ObjectNode root = extra.deepCopy();
    if (!collections.isEmpty()) {
      ObjectNode c = root.putObject("c");
      collections.forEach((name, table) -> c.set(name, table.toTree()));
    }
    // Sections in canonical order (c, kv, q), as every member below: see DocTable#toTree.
    toTreeWithout().properties().forEach(e -> root.set(e.getKey(), e.getValue()));
    return root;
  }
}
