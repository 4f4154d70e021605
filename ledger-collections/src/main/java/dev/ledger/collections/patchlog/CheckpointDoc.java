package dev.ledger.collections.patchlog;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.internal.json.CanonicalWriter;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Where a document loaded from a checkpoint lies in the checkpoint's bytes ({@link StateScan}),
 * the merge patches of the journal after the checkpoint still to be applied to it, and the
 * values of its table's indexed fields as those patches leave them, found without a tree: a
 * cold open keeps each document so, and parses it into its tree only when it is used
 * ({@link DocTable.Doc#tree}); a partial update folded from the journal before then is kept as
 * its patch ({@link #withPatch}) instead of parsing the document to apply it. Immutable; the
 * array is the checkpoint's, shared by its documents and never changed; the patches are the
 * log's and never changed either (a merge copies what it takes from them).
 */
final class CheckpointDoc {
  private final byte[] bytes;
  private final int offset;
  private final int length;
  /** Whether the bytes hold no whitespace outside strings (as a compact checkpoint writes). */
  private final boolean compact;
  private final Path file;
  private final String collection;
  /** The table's indexed fields, and each one's value in the document (null: absent). */
  private final String[] fields;
  private final JsonNode[] values;
  /** Merge patches (objects) to apply, in order, to the parsed bytes; most often none. */
  private final JsonNode[] patches;

  CheckpointDoc(byte[] bytes, int offset, int length, boolean compact, Path file,
      String collection, String[] fields, JsonNode[] values) {
    this(bytes, offset, length, compact, file, collection, fields, values, NO_PATCHES);
  }

  private static final JsonNode[] NO_PATCHES = new JsonNode[0];

  private CheckpointDoc(byte[] bytes, int offset, int length, boolean compact, Path file,
      String collection, String[] fields, JsonNode[] values, JsonNode[] patches) {
    this.patches = patches;
    this.bytes = bytes;
    this.offset = offset;
    this.length = length;
    this.compact = compact;
    this.file = file;
    this.collection = collection;
    this.fields = fields;
    this.values = values;
  }

  int length() {
    return length;
  }

  /**
   * Whether {@link #length} is the document's size as the store measures it: the bytes hold
   * no whitespace outside strings (as a compact checkpoint writes) and no patch is pending.
   */
  boolean compact() {
    return compact && patches.length == 0;
  }

  /** How many patches are pending. */
  int pending() {
    return patches.length;
  }

  /**
   * This document with merge patch {@code patch} applied after the ones pending: its tree,
   * when parsed, is {@code Json.merge} of each in turn onto the parse, as a fold that parsed
   * the document first would have made it, and the indexed fields' values are merged now.
   *
   * @param patch an object, the log's (not copied, never changed)
   */
  CheckpointDoc withPatch(JsonNode patch) {
    JsonNode[] merged = values;
    for (int i = 0; i < fields.length; i++) {
      JsonNode change = patch.get(fields[i]);
      if (change != null) {
        if (merged == values) {
          merged = values.clone();
        }
        JsonNode was = merged[i];
        // What the merge of the whole document does to this member.
        merged[i] = Json.merge(was == null ? null : was.deepCopy(), change);
      }
    }
    JsonNode[] more = java.util.Arrays.copyOf(patches, patches.length + 1);
    more[patches.length] = patch;
    return new CheckpointDoc(bytes, offset, length, compact, file, collection, fields, merged,
        more);
  }

  /**
   * Appends the document's bytes as they are, if they are the canonical JSON of the tree
   * {@link #parse} would build: they are compact (this store's checkpoints are written as
   * canonical JSON, see {@code Checkpoint#encodeCompact}) and hold no member whose value is
   * null (which the parse drops; an occurrence of {@code :null} anywhere, even inside a
   * string, counts); and no patch is pending (the bytes are then not the document).
   *
   * @return false, having appended nothing, if the bytes may not be canonical
   */
  boolean copyTo(CanonicalWriter out) {
    if (!compact() || mayHoldNullMember()) {
      return false;
    }
    out.raw(bytes, offset, length);
    return true;
  }

  private boolean mayHoldNullMember() {
    int end = offset + length - 4;
    for (int i = offset; i < end; i++) {
      if (bytes[i] == ':' && bytes[i + 1] == 'n' && bytes[i + 2] == 'u' && bytes[i + 3] == 'l'
          && bytes[i + 4] == 'l') {
        return true;
      }
    }
    return false;
  }

  /** The value of indexed field {@code name}, or null if the document has none. */
  JsonNode field(String name) {
    for (int i = 0; i < fields.length; i++) {
      if (fields[i].equals(name)) {
        return values[i];
      }
    }
    throw new IllegalStateException("not an indexed field of '" + collection + "': " + name);
  }

  /**
   * The document's tree, as the whole checkpoint's parse would have built it: a strict parse
   * (duplicate names refused), nulls dropped as a merge drops them; then the pending patches
   * merged into it in order. A new tree each call, the caller's own.
   *
   * @throws CorruptLedgerException naming the checkpoint file if the bytes do not parse
   */
  ObjectNode parse(String key) {
    JsonNode tree;
    try {
      tree = LedgerJson.parse(bytes, offset, length);
    } catch (IOException e) {
      throw new CorruptLedgerException(file, offset, "document '" + key + "' of collection '"
          + collection + "' is not valid JSON: " + e.getMessage(), e);
    }
    JsonNode doc = withoutNullMembers(tree);
    for (JsonNode patch : patches) {
      doc = Json.merge(doc, patch);
    }
    return (ObjectNode) doc;
  }

  /**
   * The named top-level members of the document, in that order, as {@link #parse} would give
   * them (nulls dropped, the pending patches applied), without building or keeping the rest:
   * a strict streaming pass over the bytes (a repeated name refused at any depth, as the parse
   * refuses it) that builds only the named members' values. With pending patches, the whole
   * tree is parsed and picked from. A new object each call, the caller's own.
   *
   * @throws CorruptLedgerException naming the checkpoint file if the bytes do not parse
   */
  ObjectNode project(String key, String[] names) {
    if (patches.length > 0) {
      return DocTable.pick(parse(key), names, false);
    }
    JsonNode[] found = new JsonNode[names.length];
    try (JsonParser in = LedgerJson.mapper().createParser(bytes, offset, length)) {
      if (in.nextToken() != JsonToken.START_OBJECT) {
        throw new IOException("not a JSON object");
      }
      JsonToken token;
      while ((token = in.nextToken()) == JsonToken.FIELD_NAME) {
        String name = in.currentName();
        in.nextToken();
        int at = indexOf(names, name);
        if (at >= 0) {
          found[at] = LedgerJson.treeReader().readTree(in);
        } else {
          in.skipChildren();
        }
      }
      if (token != JsonToken.END_OBJECT || in.nextToken() != null) {
        throw new IOException("not one JSON object");
      }
    } catch (IOException e) {
      throw new CorruptLedgerException(file, offset, "document '" + key + "' of collection '"
          + collection + "' is not valid JSON: " + e.getMessage(), e);
    }
    ObjectNode out = Json.NODES.objectNode();
    for (int i = 0; i < names.length; i++) {
      if (found[i] != null && !found[i].isNull()) {
        out.set(names[i], withoutNullMembers(found[i]));
      }
    }
    return out;
  }

  private static int indexOf(String[] names, String name) {
    for (int i = 0; i < names.length; i++) {
      if (names[i].equals(name)) {
        return i;
      }
    }
    return -1;
  }

  /** {@code value} as a merge patch leaves it in a document: no null members in objects. */
  static JsonNode withoutNullMembers(JsonNode value) {
    return value.isObject() && Json.hasNullMember(value) ? Json.merge(null, value) : value;
  }
}
