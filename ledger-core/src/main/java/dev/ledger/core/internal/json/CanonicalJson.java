package dev.ledger.core.internal.json;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;

/**
 * The canonical JSON of a tree written straight to a generator, and the tree a canonical
 * write and re-read would give, built without writing and parsing: the commit path's
 * serialization without Jackson's serializer provider, its per-object sorting map, or a
 * re-parse. The bytes are exactly those of {@link LedgerJson#canonical} (keys sorted by
 * {@link String#compareTo}, compact), so nothing on disk changes.
 *
 * <p>Covers the node kinds that parsing JSON produces and that value mapping usually does:
 * objects, arrays, strings, {@code int}, {@code long}, big integers, finite doubles, booleans
 * and null. Anything else (floats, big decimals, binary, POJO nodes, non-finite doubles)
 * makes {@link #write} throw {@link Unsupported} and {@link #normalized} return null, and
 * the caller falls back to Jackson's own writer and parser, which define the canonical form.
 */
final class CanonicalJson {
  private CanonicalJson() {}

  /** A node this writer does not handle; the caller falls back to Jackson's writer. */
  static final class Unsupported extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Unsupported(JsonNode node) {
      super("node kind " + node.getNodeType() + " (" + node.getClass().getSimpleName() + ")",
          null, false, false);
    }
  }

  /**
   * Writes {@code node} to {@code out} in canonical form.
   *
   * @throws Unsupported if the tree holds a node kind this writer does not handle; some
   *     output may have been written already
   * @throws IOException from the generator (a nesting depth beyond its constraints, a string
   *     that is not valid UTF-16)
   */
  static void write(JsonGenerator out, JsonNode node) throws IOException {
    switch (node.getNodeType()) {
      case OBJECT -> writeObject(out, (ObjectNode) node);
      case ARRAY -> {
        out.writeStartArray(node, node.size());
        for (JsonNode item : node) {
          write(out, item);
        }
        out.writeEndArray();
      }
      case STRING -> out.writeString(node.textValue());
      case BOOLEAN -> out.writeBoolean(node.booleanValue());
      case NULL -> out.writeNull();
      case NUMBER -> writeNumber(out, node);
      default -> throw new Unsupported(node);
    }
  }

  private static void writeNumber(JsonGenerator out, JsonNode node) throws IOException {
    if (node instanceof IntNode) {
      out.writeNumber(node.intValue());
    } else if (node instanceof LongNode) {
      out.writeNumber(node.longValue());
    } else if (node.isBigInteger()) {
      out.writeNumber(node.bigIntegerValue());
    } else if (node.isDouble() && Double.isFinite(node.doubleValue())) {
      out.writeNumber(node.doubleValue());
    } else {
      throw new Unsupported(node);
    }
  }

  /** Whether {@code node}'s member names are in ascending order already (no sort needed). */
  static boolean namesSorted(ObjectNode node) {
    String previous = null;
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (previous != null && previous.compareTo(name) > 0) {
        return false;
      }
      previous = name;
    }
    return true;
  }

  /** {@code node}'s member names in ascending order (for an object whose members are not). */
  static String[] sortedNames(ObjectNode node) {
    String[] names = new String[node.size()];
    int i = 0;
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      names[i++] = it.next();
    }
    Arrays.sort(names);
    return names;
  }

  private static void writeObject(JsonGenerator out, ObjectNode node) throws IOException {
    out.writeStartObject(node, node.size());
    boolean sorted = namesSorted(node);
    if (sorted) {
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        out.writeFieldName(field.getKey());
        write(out, field.getValue());
      }
    } else {
      for (String name : sortedNames(node)) {
        out.writeFieldName(name);
        write(out, node.get(name));
      }
    }
    out.writeEndObject();
  }

  /**
   * The tree that parsing the canonical bytes of {@code node} gives (equal, with object
   * members in sorted order and integers in the smallest of {@code int}, {@code long} and
   * big integer that holds them), built in place from {@code node}, which the caller owns
   * and must not use afterwards; or null if the tree holds a node kind this does not handle.
   * The caller has checked that the tree can be written (its canonical bytes exist).
   */
  static JsonNode normalized(JsonNode node) {
    switch (node.getNodeType()) {
      case OBJECT -> {
        return normalizedObject((ObjectNode) node);
      }
      case ARRAY -> {
        ArrayNode array = (ArrayNode) node;
        for (int i = 0; i < array.size(); i++) {
          JsonNode item = array.get(i);
          JsonNode normal = normalized(item);
          if (normal == null) {
            return null;
          }
          if (normal != item) {
            array.set(i, normal);
          }
        }
        return array;
      }
      case STRING, BOOLEAN, NULL -> {
        return node;
      }
      case NUMBER -> {
        return normalizedNumber(node);
      }
      default -> {
        return null;
      }
    }
  }

  private static JsonNode normalizedNumber(JsonNode node) {
    if (node instanceof IntNode) {
      return node;
    }
    if (node instanceof LongNode) {
      long value = node.longValue();
      return value == (int) value ? IntNode.valueOf((int) value) : node;
    }
    if (node.isBigInteger()) {
      BigInteger value = node.bigIntegerValue();
      if (value.bitLength() < 32) {
        return IntNode.valueOf(value.intValue());
      }
      return value.bitLength() < 64 ? LongNode.valueOf(value.longValue()) : node;
    }
    if (node.isDouble() && Double.isFinite(node.doubleValue())) {
      return node;
    }
    return null;
  }

  private static JsonNode normalizedObject(ObjectNode node) {
    String previous = null;
    boolean sorted = true;
    for (Map.Entry<String, JsonNode> field : node.properties()) {
      String name = field.getKey();
      if (previous != null && previous.compareTo(name) > 0) {
        sorted = false;
      }
      previous = name;
      JsonNode value = field.getValue();
      JsonNode normal = normalized(value);
      if (normal == null) {
        return null;
      }
      if (normal != value) {
        node.set(name, normal); // replaces an existing key: no structural change
      }
    }
    if (sorted) {
      return node;
    }
    String[] names = new String[node.size()];
    int i = 0;
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      names[i++] = it.next();
    }
    Arrays.sort(names);
    ObjectNode ordered = JsonNodeFactory.instance.objectNode();
    for (String name : names) {
      ordered.set(name, node.get(name));
    }
    return ordered;
  }
}
