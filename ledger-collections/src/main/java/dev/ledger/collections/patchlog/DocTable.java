package dev.ledger.collections.patchlog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.internal.json.CanonicalWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The live documents of one collection of a partition: by key, in insertion order, and by
 * the value of each indexed field. Mutated only by {@link PartitionView} while it holds the
 * view's write side.
 */
final class DocTable {
  /**
   * One stored document; the tree is replaced or mutated only through its table. A document
   * loaded from a checkpoint may still be the bytes of its JSON there ({@link CheckpointDoc}),
   * parsed into its tree on first use: {@link #tree()} is safe from several reading threads
   * (each may parse; one tree is kept, and a parse twice is harmless).
   */
  static final class Doc {
    final String key;
    final long ordinal;
    /** The tree, or null until a checkpoint document's bytes are parsed. */
    private volatile ObjectNode tree;
    /**
     * Where the tree comes from before its first use; null for a document built as a tree,
     * and once the tree is set (so that the checkpoint's array can go once every document
     * that was loaded from it is parsed or replaced). Written after {@link #tree}.
     */
    private volatile CheckpointDoc source;
    /** Its compact JSON size, or {@link #UNMEASURED} until {@link #bytes()} needs it. */
    int bytes;
    /**
     * Whether the tree may also be held by a committed patch (a transaction's document
     * installed as it was written, see {@link PartitionView#applyOwn}) or by the checkpoint
     * it was loaded from ({@link PartitionView#load}): a patch log may keep the patch or
     * state it gave or was given (the in-memory store does), so such a tree is copied before
     * it is changed in place. A partial update's tree also holds the nodes of the fields it
     * did not name from the version it replaced (see {@code TxCollection#write}), so those
     * nodes too are never changed in place once it is installed. A tree parsed from a
     * checkpoint document's bytes is the document's own.
     */
    boolean shared;
    /**
     * The document's member of the checkpoint's {@code docs} object (its key, then
     * {@code {"d":tree,"o":ordinal}}) as the last checkpoint wrote it
     * ({@link DocTable#keepWritten}): {@code writtenLength} bytes of this array from
     * {@code writtenOffset}, or null. The next checkpoint copies them instead of writing the
     * tree again; cleared whenever the tree is replaced or changed ({@link #tree(ObjectNode)},
     * {@link DocTable#patch}); the key and ordinal never change. Only the partition's writer
     * (its writer lock held) touches it.
     */
    private byte[] written;
    private int writtenOffset;
    private int writtenLength;

    Doc(String key, long ordinal, ObjectNode tree, int bytes) {
      this.key = key;
      this.ordinal = ordinal;
      this.tree = tree;
      this.bytes = bytes;
      this.source = null;
    }

    /** A document still as its checkpoint's bytes, unmeasured. */
    Doc(String key, long ordinal, CheckpointDoc source) {
      this.key = key;
      this.ordinal = ordinal;
      this.source = source;
      this.bytes = UNMEASURED;
    }

    /**
     * The document's tree, parsed from its checkpoint's bytes on first use.
     *
     * @throws dev.ledger.core.CorruptLedgerException naming the checkpoint file if those
     *     bytes do not parse
     */
    ObjectNode tree() {
      ObjectNode t = tree;
      if (t == null) {
        CheckpointDoc s = source;
        if (s == null) {
          // Another thread set the tree (before it cleared the source).
          return tree;
        }
        // Parsed into a local and published whole through the volatile field.
        t = s.parse(key);
        tree = t;
        source = null;
      }
      return t;
    }

    /** Replaces the tree; with the view's write side held. */
    void tree(ObjectNode replacement) {
      tree = replacement;
      source = null;
      written = null;
    }

    /** Top-level member {@code name} (an indexed field), without parsing a checkpoint's bytes. */
    JsonNode field(String name) {
      CheckpointDoc s = source;
      return s != null ? s.field(name) : tree().get(name);
    }

    /**
     * Appends the document's canonical JSON, which sits inside {@code enclosing} containers:
     * a checkpoint document's bytes copied as they are when {@link CheckpointDoc#copyTo} can,
     * else its tree written (and so parsed, if it was not).
     *
     * @return false if the tree holds a node kind the writer does not handle (see
     *     {@link CanonicalWriter#tree}); the output is then to be discarded
     */
    boolean writeTo(CanonicalWriter out, int enclosing) {
      CheckpointDoc s = source;
      if (s != null && s.copyTo(out)) {
        return true;
      }
      return out.tree(tree(), enclosing);
    }

    /** Its compact JSON size, measured now. */
    int measure() {
      CheckpointDoc s = source;
      return s != null && s.compact() ? s.length() : Json.bytes(tree());
    }
  }

  /** A document's size before it is measured. */
  static final int UNMEASURED = -1;
  /**
   * Patches a document still as its checkpoint's bytes keeps pending at most ({@link #patch});
   * the next one parses it and applies them all, so that a document patched often but never
   * read does not keep a growing list of them.
   */
  static final int MAX_PENDING = 8;

  private final Map<String, Doc> byKey = new HashMap<>();
  private final OrdinalMap byOrdinal = new OrdinalMap();
  /** Indexed top-level field, then {@link Json#indexKey} of its value, then keys. */
  private final Map<String, Map<String, Set<String>>> indexes = new HashMap<>();
  /**
   * The keys in sorted order as of the last {@link #toTree}, or null before it; with
   * {@link #addedKeys}, the keys put since (some may have left the table again).
   */
  private String[] keyOrder;
  private final List<String> addedKeys = new ArrayList<>();
  /** The ordinal the next inserted document gets. */
  long next;
  /** The sizes of the measured documents. */
  private long bytes;
  /**
   * Documents put {@link #UNMEASURED} (a view loading a checkpoint or folding the journal
   * measures no document until the checkpoint policy asks); some may have left the table.
   */
  private final List<Doc> unmeasured = new ArrayList<>();
  /**
   * Whether the indexes are left empty while documents change ({@link #deferIndexes}): a cold
   * open puts every checkpointed document and applies every journal patch, and maintaining
   * the indexes through each of those costs more than building them once at the end.
   */
  private boolean deferred;
  private final String[] indexedFields;
  /**
   * The documents the last {@link #writeTo} wrote from their trees or their kept bytes, and
   * where each one's bytes start and end in its output (two ints per document), until
   * {@link #keepWritten} hands them the output's array; {@code writtenCount} of them.
   */
  private Doc[] writtenDocs = new Doc[0];
  private int[] writtenRanges = new int[0];
  private int writtenCount;

  DocTable(List<String> indexed) {
    for (String field : indexed) {
      indexes.put(field, new HashMap<>());
    }
    indexedFields = indexes.keySet().toArray(new String[0]);
  }

  /** The indexed top-level fields, for a loader that finds their values without a tree. */
  String[] indexedFields() {
    return indexedFields;
  }

  /**
   * Stops maintaining the indexes, and empties them, until {@link #buildIndexes}; lookups
   * must not be made meanwhile.
   */
  void deferIndexes() {
    deferred = true;
    for (Map<String, Set<String>> index : indexes.values()) {
      index.clear();
    }
  }

  /**
   * Builds the indexes of the documents as they are, after {@link #deferIndexes}, and
   * maintains them again from then on; each bucket lists its keys in insertion order.
   */
  void buildIndexes() {
    if (!deferred) {
      return;
    }
    deferred = false;
    byOrdinal.sort();
    for (Map.Entry<String, Map<String, Set<String>>> index : indexes.entrySet()) {
      String field = index.getKey();
      Map<String, Set<String>> buckets = index.getValue();
      // Documents inserted together often share a value (a batch of one group): a run of
      // equal values goes to one bucket, found once. Equal values have the same index key.
      JsonNode last = null;
      Set<String> bucket = null;
      for (Doc doc : byOrdinal.values()) {
        JsonNode value = doc.field(field);
        if (bucket == null || !(value == last || (value != null && value.equals(last)))) {
          bucket = buckets.computeIfAbsent(Json.indexKey(value), k -> new LinkedHashSet<>());
          last = value;
        }
        bucket.add(doc.key);
      }
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
    // One lookup of the key (a cold open puts every document of a checkpoint).
    Doc old = byKey.put(doc.key, doc);
    if (old != null && old.ordinal == doc.ordinal) {
      replace(old, doc);
      return;
    }
    if (old != null) {
      // What remove(old.key) does besides the map entry put over above.
      byOrdinal.remove(old.ordinal);
      unindex(old);
      if (old.bytes != UNMEASURED) {
        bytes -= old.bytes;
      }
    }
    if (keyOrder != null) {
      addedKeys.add(doc.key);
    }
    byOrdinal.put(doc);
    if (!deferred) {
      // Sorted for the readers (a no-op unless the put came out of order: see OrdinalMap).
      byOrdinal.sort();
    }
    index(doc);
    if (doc.bytes == UNMEASURED) {
      unmeasured.add(doc);
    } else {
      bytes += doc.bytes;
    }
  }

  /**
   * Puts {@code doc} in the place of {@code old}, the same key at the same ordinal: the maps
   * keep their entries, and only the index buckets whose value changed move (a query orders
   * what an index gives by ordinal, so a bucket's order does not matter).
   */
  private void replace(Doc old, Doc doc) {
    byKey.put(doc.key, doc);
    byOrdinal.put(doc);
    if (!deferred) {
      byOrdinal.sort();
    }
    for (Map.Entry<String, Map<String, Set<String>>> index : indexed()) {
      JsonNode was = old.field(index.getKey());
      JsonNode is = doc.field(index.getKey());
      if (was == is || (was != null && was.equals(is))) {
        // Equal values have the same index key (a partial update shares the node).
        continue;
      }
      String before = Json.indexKey(was);
      String after = Json.indexKey(is);
      if (!before.equals(after)) {
        Set<String> keys = index.getValue().get(before);
        if (keys != null) {
          keys.remove(doc.key);
          if (keys.isEmpty()) {
            index.getValue().remove(before);
          }
        }
        index.getValue().computeIfAbsent(after, k -> new LinkedHashSet<>()).add(doc.key);
      }
    }
    if (old.bytes != UNMEASURED) {
      bytes -= old.bytes;
    }
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
   * Applies a merge patch to a stored document, keeping its indexes right. A document still
   * as its checkpoint's bytes, unmeasured, keeps an object patch pending instead (up to
   * {@link #MAX_PENDING}), applied when its tree is first used (see {@link CheckpointDoc}):
   * the same tree then as if it were applied now. A shared tree (one
   * a committed patch or the checkpoint it was loaded from also holds, see {@link Doc#shared}
   * and {@link PartitionView#load}) is copied first, since those must not change; a flat
   * document's copy is one map, its values immutable nodes that stay shared.
   */
  void patch(Doc doc, JsonNode patch) {
    CheckpointDoc source = doc.source;
    if (source != null && doc.tree == null && doc.bytes == UNMEASURED && patch.isObject()
        && source.pending() < MAX_PENDING) {
      // Still the checkpoint's bytes, and nothing needs its size: the patch waits with them
      // until the document is used (a cold open folds a tail of partial updates to documents
      // mostly never read before the next checkpoint); the indexed values change now.
      unindex(doc);
      doc.source = source.withPatch(patch);
      index(doc);
      return;
    }
    unindex(doc);
    // The merge may change the tree in place: its written bytes go first.
    doc.written = null;
    ObjectNode tree = doc.tree();
    JsonNode merged = Json.merge(doc.shared ? tree.deepCopy() : tree, patch);
    doc.shared = false;
    doc.tree(merged != null && merged.isObject() ? (ObjectNode) merged
        : Json.NODES.objectNode());
    if (doc.bytes != UNMEASURED) {
      bytes -= doc.bytes;
      doc.bytes = Json.bytes(doc.tree());
      bytes += doc.bytes;
    }
    index(doc);
  }

  /** Bytes of the documents as compact JSON; measures those not measured yet. */
  long bytes() {
    for (Doc doc : unmeasured) {
      if (doc.bytes == UNMEASURED && byKey.get(doc.key) == doc) {
        doc.bytes = doc.measure();
        bytes += doc.bytes;
      }
    }
    unmeasured.clear();
    return bytes;
  }

  /** The indexes to maintain: none while they are deferred. */
  private Set<Map.Entry<String, Map<String, Set<String>>>> indexed() {
    return deferred ? Set.of() : indexes.entrySet();
  }

  private void index(Doc doc) {
    for (Map.Entry<String, Map<String, Set<String>>> index : indexed()) {
      index.getValue().computeIfAbsent(Json.indexKey(doc.field(index.getKey())),
          k -> new LinkedHashSet<>()).add(doc.key);
    }
  }

  private void unindex(Doc doc) {
    for (Map.Entry<String, Map<String, Set<String>>> index : indexed()) {
      String bucket = Json.indexKey(doc.field(index.getKey()));
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
    // Members are added in the order the checkpoint's canonical JSON writes them (names
    // sorted by String.compareTo): the writer then streams each object as it is, where an
    // object built in another order (documents by ordinal) makes it sort the names and look
    // every member up again. The bytes are the same either way.
    ObjectNode node = Json.NODES.objectNode();
    ObjectNode docs = node.putObject("docs");
    String[] keys = sortedKeys();
    int kept = 0;
    for (String key : keys) {
      Doc doc = byKey.get(key);
      if (doc == null) {
        continue; // removed since it was put
      }
      keys[kept++] = key;
      // Two members: a map sized for them, not the default sixteen slots.
      ObjectNode entry = new ObjectNode(Json.NODES, new LinkedHashMap<>(4));
      entry.set("d", doc.tree());
      entry.set("o", Json.number(doc.ordinal));
      docs.set(key, entry);
    }
    keyOrder = kept == keys.length ? keys : Arrays.copyOf(keys, kept);
    node.set("next", Json.number(next));
    return node;
  }

  /**
   * Appends {@link #toTree}'s canonical JSON, which sits inside {@code enclosing} containers,
   * without building the tree: the documents still as a checkpoint's bytes are copied, not
   * parsed (see {@link Doc#writeTo}).
   *
   * @return false if a document holds a node kind the writer does not handle; the output is
   *     then to be discarded
   */
  boolean writeTo(CanonicalWriter out, int enclosing) {
    out.raw(DOCS_OPEN);
    String[] keys = sortedKeys();
    if (writtenDocs.length < keys.length) {
      writtenDocs = new Doc[keys.length];
      writtenRanges = new int[2 * keys.length];
    }
    writtenCount = 0;
    int kept = 0;
    for (String key : keys) {
      Doc doc = byKey.get(key);
      if (doc == null) {
        continue; // removed since it was put
      }
      if (kept > 0) {
        out.raw(',');
      }
      keys[kept++] = key;
      int start = out.size();
      byte[] w = doc.written;
      if (w != null) {
        // The tree did not change since the last checkpoint wrote this member.
        out.raw(w, doc.writtenOffset, doc.writtenLength);
      } else {
        out.string(key);
        out.raw(D_OPEN);
        if (!doc.writeTo(out, enclosing + 3)) {
          keyOrder = null; // the next call sorts every key afresh
          forgetWritten();
          return false;
        }
        out.raw(O_MEMBER);
        out.number(doc.ordinal);
        out.raw('}');
      }
      if (doc.source == null) {
        // Written from its tree, or its kept bytes: they move to this output (keepWritten).
        writtenDocs[writtenCount] = doc;
        writtenRanges[2 * writtenCount] = start;
        writtenRanges[2 * writtenCount + 1] = out.size() - start;
        writtenCount++;
      }
    }
    keyOrder = kept == keys.length ? keys : Arrays.copyOf(keys, kept);
    out.raw(NEXT_MEMBER);
    out.number(next);
    out.raw('}');
    return true;
  }

  /**
   * Hands the documents the last {@link #writeTo} wrote from their trees (or from bytes kept
   * before) their members' bytes in {@code output}, the array of the writer it wrote to, now complete:
   * the next checkpoint copies them while their trees stay as they are. The array is kept
   * (one checkpoint's state, while any of its documents is unchanged) and must never change.
   * Call as the partition's writer, after the whole state was written.
   */
  void keepWritten(byte[] output) {
    for (int i = 0; i < writtenCount; i++) {
      Doc doc = writtenDocs[i];
      doc.written = output;
      doc.writtenOffset = writtenRanges[2 * i];
      doc.writtenLength = writtenRanges[2 * i + 1];
    }
    forgetWritten();
  }

  /** Drops what the last {@link #writeTo} recorded for {@link #keepWritten}. */
  void forgetWritten() {
    java.util.Arrays.fill(writtenDocs, 0, writtenCount, null);
    writtenCount = 0;
  }

  private static final byte[] DOCS_OPEN = ascii("{\"docs\":{");
  private static final byte[] D_OPEN = ascii(":{\"d\":");
  private static final byte[] O_MEMBER = ascii(",\"o\":");
  private static final byte[] NEXT_MEMBER = ascii("},\"next\":");

  private static byte[] ascii(String text) {
    return text.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  }

  /**
   * The keys in sorted order, some perhaps removed since they were put (the caller skips
   * those and keeps the rest as {@link #keyOrder}). The order is kept from one call to the
   * next with the keys put since, so that a call sorts only those and merges them in (the sort
   * finds the sorted run of the kept keys): linear in the table, not {@code n log n}, when few
   * keys are new.
   */
  private String[] sortedKeys() {
    String[] keys;
    if (keyOrder == null) {
      keys = byKey.keySet().toArray(new String[0]);
    } else {
      keys = Arrays.copyOf(keyOrder, keyOrder.length + addedKeys.size());
      for (int i = 0; i < addedKeys.size(); i++) {
        keys[keyOrder.length + i] = addedKeys.get(i);
      }
    }
    Arrays.sort(keys);
    // A key removed and put again since the last call is there twice.
    int unique = 0;
    for (int i = 0; i < keys.length; i++) {
      if (unique == 0 || !keys[unique - 1].equals(keys[i])) {
        keys[unique++] = keys[i];
      }
    }
    addedKeys.clear();
    return unique == keys.length ? keys : Arrays.copyOf(keys, unique);
  }
}
