package dev.ledger.collections.patchlog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The live documents of one collection of a partition: by key, in insertion order, and by
 * the value of each indexed field. Mutated only by {@link PartitionView} while it holds the
 * view's write side.
 */
final class DocTable {
  /** One stored document; the tree is replaced or mutated only through its table. */
  static final class Doc {
    final String key;
    final long ordinal;
    ObjectNode tree;
    /** Its compact JSON size, or {@link #UNMEASURED} until {@link #bytes()} needs it. */
    int bytes;

    Doc(String key, long ordinal, ObjectNode tree, int bytes) {
      this.key = key;
      this.ordinal = ordinal;
      this.tree = tree;
      this.bytes = bytes;
    }
  }

  /** A document's size before it is measured. */
  static final int UNMEASURED = -1;

  private final Map<String, Doc> byKey = new HashMap<>();
  private final TreeMap<Long, Doc> byOrdinal = new TreeMap<>();
  /** Indexed top-level field, then {@link Json#indexKey} of its value, then keys. */
  private final Map<String, Map<String, Set<String>>> indexes = new HashMap<>();
  /** The ordinal the next inserted document gets. */
  long next;
  /** The sizes of the measured documents. */
  private long bytes;
  /**
   * Documents put {@link #UNMEASURED} (a view loading a checkpoint or folding the journal
   * measures no document until the checkpoint policy asks); some may have left the table.
   */
  private final List<Doc> unmeasured = new ArrayList<>();

  DocTable(List<String> indexed) {
    for (String field : indexed) {
      indexes.put(field, new HashMap<>());
    }
  }

  Doc get(String key) {
    return byKey.get(key);
  }

  int size() {
    return byKey.size();
  }

  /** The documents, oldest insertion first. */
  Iterable<Doc> inOrder() {
    return byOrdinal.values();
  }

  boolean indexed(String field) {
    return indexes.containsKey(field);
  }

  /** Keys whose indexed {@code field} has index key {@code bucket}; empty if none. */
  Set<String> lookup(String field, String bucket) {
    Set<String> keys = indexes.get(field).get(bucket);
    return keys == null ? Set.of() : keys;
  }

  void put(Doc doc) {
    remove(doc.key);
    byKey.put(doc.key, doc);
    byOrdinal.put(doc.ordinal, doc);
    index(doc);
    if (doc.bytes == UNMEASURED) {
      unmeasured.add(doc);
    } else {
      bytes += doc.bytes;
    }
  }

  void remove(String key) {
    Doc doc = byKey.remove(key);
    if (doc != null) {
      byOrdinal.remove(doc.ordinal);
      unindex(doc);
      if (doc.bytes != UNMEASURED) {
        bytes -= doc.bytes;
      }
    }
  }

  /**
   * Applies a merge patch to a stored document, keeping its indexes right. The document gets
   * a new tree: its old one may be shared with the checkpoint it was loaded from, which must
   * not change ({@link PartitionView#load}). A flat document's copy is one map; its values
   * are immutable nodes and stay shared.
   */
  void patch(Doc doc, JsonNode patch) {
    unindex(doc);
    JsonNode merged = Json.merge(doc.tree.deepCopy(), patch);
    doc.tree = merged != null && merged.isObject() ? (ObjectNode) merged : Json.NODES.objectNode();
    if (doc.bytes != UNMEASURED) {
      bytes -= doc.bytes;
      doc.bytes = Json.bytes(doc.tree);
      bytes += doc.bytes;
    }
    index(doc);
  }

  /** Bytes of the documents as compact JSON; measures those not measured yet. */
  long bytes() {
    for (Doc doc : unmeasured) {
      if (doc.bytes == UNMEASURED && byKey.get(doc.key) == doc) {
        doc.bytes = Json.bytes(doc.tree);
        bytes += doc.bytes;
      }
    }
    unmeasured.clear();
    return bytes;
  }

  private void index(Doc doc) {
    for (Map.Entry<String, Map<String, Set<String>>> index : indexes.entrySet()) {
      index.getValue().computeIfAbsent(Json.indexKey(doc.tree.get(index.getKey())),
          k -> new LinkedHashSet<>()).add(doc.key);
    }
  }

  private void unindex(Doc doc) {
    for (Map.Entry<String, Map<String, Set<String>>> index : indexes.entrySet()) {
      String bucket = Json.indexKey(doc.tree.get(index.getKey()));
      Set<String> keys = index.getValue().get(bucket);
      if (keys != null) {
        keys.remove(doc.key);
        if (keys.isEmpty()) {
          index.getValue().remove(bucket);
        }
      }
    }
  }

  /** This table as the state tree holds it: {@code {"next": n, "docs": {key: {"o","d"}}}}. */
  ObjectNode toTree() {
    ObjectNode node = Json.NODES.objectNode();
    node.set("next", Json.number(next));
    ObjectNode docs = node.putObject("docs");
    for (Doc doc : byOrdinal.values()) {
      ObjectNode entry = docs.putObject(doc.key);
      entry.set("o", Json.number(doc.ordinal));
      entry.set("d", doc.tree);
    }
    return node;
  }
}
