package dev.ledger.collections.patchlog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.internal.json.JsonScanner;
import dev.ledger.core.internal.json.LedgerJson;
import dev.ledger.core.spi.RawState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

/**
 * Loads a checkpointed state from the bytes of its JSON into an empty {@link PartitionView}
 * without building a tree per document: one pass of a {@link JsonScanner} finds each
 * collection's documents, each document's key, ordinal and the bytes of its body, and the
 * values of the table's indexed fields; the body stays bytes ({@link CheckpointDoc}) until it
 * is used. Everything it skips it checks as JSON (see {@link JsonScanner}); what is not in the
 * shape the store writes ({@code {"d": {...}, "o": n}} per document) and the other sections
 * (queues, key-values, anything else) are parsed and applied as a tree, as before.
 *
 * <p>The result is the view {@link PartitionView#load(JsonNode, long)} builds from the parsed
 * tree, except that a document body's duplicate member names (which a full parse refuses at
 * open) are found when the document is first used; either way a {@link CorruptLedgerException}
 * names the checkpoint file.
 */
final class StateScan {
  /** Depth of a document's body in the checkpoint file: file, state, c, collection, docs, entry. */
  private static final int BODY_DEPTH = 6;

  /** The members of a document's entry, {@code "d"} and {@code "o"}, as UTF-8. */
  private static final byte[][] ENTRY_MEMBERS = {{'d'}, {'o'}};

  private final PartitionView view;
  private final RawState raw;
  private final byte[] bytes;
  private final JsonScanner in;

  private StateScan(PartitionView view, RawState raw) {
    this.view = view;
    this.raw = raw;
    this.bytes = raw.bytes();
    this.in = new JsonScanner(bytes, raw.offset(), raw.length());
  }

  /**
   * Loads {@code raw} into {@code view}, which must be empty.
   *
   * @throws CorruptLedgerException naming the checkpoint file if the bytes are not JSON, or a
   *     member is there twice where the scan reads names
   */
  static void load(PartitionView view, RawState raw) {
    new StateScan(view, raw).state();
  }

  private void state() {
    try {
      if (in.peek() != '{') {
        view.load(parse(in.position(), raw.offset() + raw.length()), raw.revision());
        return;
      }
      view.startAdopting();
      try {
        Set<String> sections = new HashSet<>();
        if (in.beginObject()) {
          do {
            String name = unique(sections, in.name());
            if (name.equals("c") && in.peek() == '{') {
              collections();
            } else {
              ObjectNode section = Json.NODES.objectNode();
              section.set(name, value(2));
              view.applyPatch(section, raw.revision());
            }
          } while (in.nextMember());
        }
        if (!in.atEnd()) {
          throw in.error("not a single JSON value");
        }
      } finally {
        view.stopAdopting();
      }
      view.revision = raw.revision();
    } catch (JsonScanner.MalformedJsonException e) {
      throw new CorruptLedgerException(raw.file(), e.offset(), "state is not JSON ("
          + e.getMessage() + ")", e);
    }
  }

  private void collections() {
    Set<String> names = new HashSet<>();
    if (!in.beginObject()) {
      return;
    }
    do {
      String name = unique(names, in.name());
      if (in.peek() != '{') {
        ObjectNode c = Json.NODES.objectNode();
        c.putObject("c").set(name, value(3));
        view.applyPatch(c, raw.revision());
        continue;
      }
      DocTable table = view.table(name);
      boolean docsSeen = false;
      boolean nextSeen = false;
      if (in.beginObject()) {
        do {
          String member = in.name();
          if (member.equals("docs")) {
            docsSeen = once(docsSeen, member);
            if (in.peek() == '{') {
              table = docs(name, table);
            } else {
              // Not an object: the tree path replaces the table, as for any patch.
              ObjectNode c = Json.NODES.objectNode();
              c.putObject("c").putObject(name).set("docs", value(4));
              view.applyPatch(c, raw.revision());
              table = view.table(name);
            }
          } else if (member.equals("next")) {
            nextSeen = once(nextSeen, member);
            JsonNode next = value(4);
            if (next.isIntegralNumber()) {
              table.next = next.longValue();
            }
          } else {
            in.skipValue(4);
          }
        } while (in.nextMember());
      }
    } while (in.nextMember());
  }

  private DocTable docs(String collection, DocTable table) {
    String[] fields = table.indexedFields();
    byte[][] fieldBytes = new byte[fields.length][];
    for (int i = 0; i < fields.length; i++) {
      fieldBytes[i] = fields[i].getBytes(StandardCharsets.UTF_8);
    }
    if (!in.beginObject()) {
      return table;
    }
    do {
      String key = in.name();
      if (table.get(key) != null) {
        throw in.error("duplicate document key '" + key + "' in collection '" + collection + "'");
      }
      in.peek();
      int entry = in.position();
      DocTable.Doc doc = entry(collection, key, fields, fieldBytes);
      if (doc != null) {
        table.put(doc);
      } else {
        // Not the shape the store writes: the entry as a tree, through the general path.
        in.reset(entry);
        view.adoptDoc(table, key, value(BODY_DEPTH - 1));
      }
    } while (in.nextMember());
    return table;
  }

  /**
   * Reads one {@code {"d": {...}, "o": n}} entry as a document kept as bytes, or returns null
   * (where the scanner then stands does not matter) if it is not in that shape.
   */
  private DocTable.Doc entry(String collection, String key, String[] fields,
      byte[][] fieldBytes) {
    if (in.peek() != '{') {
      return null;
    }
    int bodyStart = -1;
    int bodyEnd = -1;
    boolean compact = false;
    JsonNode[] values = null;
    Long ordinal = null;
    if (!in.beginObject()) {
      return null;
    }
    do {
      int member = in.name(ENTRY_MEMBERS);
      if (member == 0 && bodyStart < 0) {
        if (in.peek() != '{') {
          return null;
        }
        bodyStart = in.position();
        in.clearMarks();
        values = body(fieldBytes);
        bodyEnd = in.position();
        // Its length is then its size as the store measures it (see JsonScanner#canonical).
        compact = in.canonical();
      } else if (member == 1 && ordinal == null) {
        ordinal = in.integer();
        if (ordinal == null) {
          return null;
        }
      } else {
        return null;
      }
    } while (in.nextMember());
    if (bodyStart < 0 || ordinal == null) {
      return null;
    }
    return new DocTable.Doc(key, ordinal, new CheckpointDoc(bytes, bodyStart,
        bodyEnd - bodyStart, compact, raw.file(), collection, fields, values));
  }

  /**
   * Steps over a document's body, returning the values of the indexed fields found in it
   * ({@code fields}: their names as UTF-8).
   */
  private JsonNode[] body(byte[][] fields) {
    JsonNode[] values = new JsonNode[fields.length];
    if (!in.beginObject()) {
      return values;
    }
    do {
      // Compared as bytes: a member's name is not built unless it has an escape.
      int field = in.name(fields);
      if (in.peek() == 'n') {
        in.markNullMember();
      }
      if (field < 0) {
        in.skipValue(BODY_DEPTH + 1);
      } else {
        JsonNode value = indexedValue();
        // A null member is what a merge leaves out (see CheckpointDoc#parse).
        values[field] = value.isNull() ? null : CheckpointDoc.withoutNullMembers(value);
      }
    } while (in.nextMember());
    return values;
  }

  /**
   * An indexed field's value: a string or an integer read as a parse builds it (a text node;
   * an int node, else a long node), anything else parsed.
   */
  private JsonNode indexedValue() {
    byte first = in.peek();
    if (first == '"') {
      return Json.NODES.textNode(in.string());
    }
    if (first == '-' || (first >= '0' && first <= '9')) {
      Long n = in.integer();
      if (n != null) {
        long v = n;
        return v == (int) v ? Json.NODES.numberNode((int) v) : Json.NODES.numberNode(v);
      }
    }
    return value(BODY_DEPTH + 1);
  }

  /** Steps over the value at the scanner (at {@code depth}) and returns its parsed tree. */
  private JsonNode value(int depth) {
    in.peek();
    int start = in.position();
    in.skipValue(depth);
    return parse(start, in.position());
  }

  private JsonNode parse(int from, int to) {
    try {
      return LedgerJson.parse(bytes, from, to - from);
    } catch (IOException e) {
      throw new CorruptLedgerException(raw.file(), from, "state is not JSON ("
          + e.getMessage() + ")", e);
    }
  }

  private String unique(Set<String> seen, String name) {
    if (!seen.add(name)) {
      throw in.error("duplicate member '" + name + "'");
    }
    return name;
  }

  private boolean once(boolean seen, String name) {
    if (seen) {
      throw in.error("duplicate member '" + name + "'");
    }
    return true;
  }
}
