package dev.ledger.collections.patchlog;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.TokenBuffer;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.util.Iterator;
import java.util.Map;

/** JSON values as the collection store compares, keys, patches and measures them. */
final class Json {
  static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  /** Writes compact JSON for sizes and keys; no reconfiguration, so shared. */
  private static final ObjectMapper WRITER = new ObjectMapper();

  private Json() {}

  /** Compact JSON text of {@code node}. */
  static String text(JsonNode node) {
    try {
      return WRITER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("value cannot be written as JSON: " + e.getMessage(), e);
    }
  }

  /**
   * Compact JSON text of a key array, as {@link #text} writes it: put together here when every
   * value is written as it is (printable ASCII text without quote or backslash, int and long
   * numbers, booleans), else written by the shared writer.
   */
  static String keyText(ArrayNode values) {
    StringBuilder text = new StringBuilder(16 * values.size() + 2).append('[');
    for (int i = 0; i < values.size(); i++) {
      JsonNode value = values.get(i);
      if (i > 0) {
        text.append(',');
      }
      if (value.isTextual() && plainTextBytes(value.textValue()) >= 0) {
        text.append('"').append(value.textValue()).append('"');
      } else if (value.isInt() || value.isLong() || value.isShort()) {
        text.append(value.longValue());
      } else if (value.isBoolean()) {
        text.append(value.booleanValue());
      } else {
        return text(values);
      }
    }
    return text.append(']').toString();
  }

  /** Parses JSON text this class wrote. */
  static JsonNode parse(String text) {
    try {
      return WRITER.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("not JSON: " + text, e);
    }
  }

  /**
   * Size of {@code node} as compact JSON, in bytes: the UTF-8 bytes the shared writer writes
   * for it. Counted from the tree where the written form is plain (objects, arrays, printable
   * ASCII text without quote or backslash, int and long numbers, booleans, nulls: their bytes
   * follow from their characters), and by writing the node otherwise (escapes, other
   * characters, other numbers, binary), so the sum is exactly what the writer writes.
   */
  static int bytes(JsonNode node) {
    return Math.toIntExact(countedBytes(node));
  }

  private static long countedBytes(JsonNode node) {
    switch (node.getNodeType()) {
      case OBJECT -> {
        long total = 2 + Math.max(0, node.size() - 1);
        for (Map.Entry<String, JsonNode> member : node.properties()) {
          long name = plainTextBytes(member.getKey());
          total += (name < 0 ? writtenBytes(NODES.textNode(member.getKey())) : name) + 1
              + countedBytes(member.getValue());
        }
        return total;
      }
      case ARRAY -> {
        long total = 2 + Math.max(0, node.size() - 1);
        for (JsonNode element : node) {
          total += countedBytes(element);
        }
        return total;
      }
      case STRING -> {
        long text = plainTextBytes(node.textValue());
        return text < 0 ? writtenBytes(node) : text;
      }
      case BOOLEAN -> {
        return node.booleanValue() ? 4 : 5;
      }
      case NULL -> {
        return 4;
      }
      case NUMBER -> {
        return node.isInt() || node.isLong() || node.isShort() ? digits(node.longValue())
            : writtenBytes(node);
      }
      default -> {
        return writtenBytes(node);
      }
    }
  }

  /** Size of {@code node} as the shared writer writes it, counted as it is written. */
  private static int writtenBytes(JsonNode node) {
    ByteCounter counter = new ByteCounter();
    try {
      WRITER.writeValue(counter, node);
    } catch (IOException e) {
      throw new IllegalArgumentException("value cannot be written as JSON: " + e.getMessage(), e);
    }
    return Math.toIntExact(counter.count);
  }

  /** An output stream that only counts the bytes written to it. */
  private static final class ByteCounter extends OutputStream {
    long count;

    @Override
    public void write(int b) {
      count++;
    }

    @Override
    public void write(byte[] bytes, int offset, int length) {
      count += length;
    }
  }

  /** The value at a dotted path, or null when a step is missing or not an object. */
  static JsonNode at(JsonNode doc, String[] path) {
    JsonNode node = doc;
    for (String step : path) {
      if (node == null || !node.isObject()) {
        return null;
      }
      node = node.get(step);
    }
    return node == null || node.isNull() ? null : node;
  }

  /** JSON equality with numbers compared by value. */
  static boolean equal(JsonNode a, JsonNode b) {
    if (a == null || b == null) {
      return a == b;
    }
    if (a.isNumber() && b.isNumber()) {
      return compareNumbers(a, b) == 0;
    }
    return a.equals(b);
  }

  /**
   * Two numbers by value. A floating-point value that is not finite (what a parse gives for
   * a number beyond a double's range, such as {@code 1e999}, which is valid JSON) has no
   * decimal value: such a pair is compared by their doubles.
   */
  private static int compareNumbers(JsonNode a, JsonNode b) {
    if (finite(a) && finite(b)) {
      return a.decimalValue().compareTo(b.decimalValue());
    }
    return Double.compare(a.doubleValue(), b.doubleValue());
  }

  private static boolean finite(JsonNode number) {
    return !number.isFloatingPointNumber() || Double.isFinite(number.doubleValue());
  }

  /**
   * A string that is equal for values {@link #equal} calls equal (and perhaps for a few
   * others): the bucket of a secondary index. Null stands for a missing field.
   */
  static String indexKey(JsonNode value) {
    if (value == null || value.isNull()) {
      return "z";
    }
    if (value.isNumber()) {
      if (!finite(value)) {
        return "n" + value.doubleValue();
      }
      BigDecimal number = value.decimalValue();
      return "n" + (number.signum() == 0 ? "0" : number.stripTrailingZeros().toPlainString());
    }
    if (value.isTextual()) {
      return "s" + value.textValue();
    }
    return "j" + text(value);
  }

  /** Rank of a JSON type in a sort: numbers, strings, booleans, others. */
  private static int rank(JsonNode node) {
    if (node.isNumber()) {
      return 0;
    }
    if (node.isTextual()) {
      return 1;
    }
    if (node.isBoolean()) {
      return 2;
    }
    return 3;
  }

  /** Sort order of two present values (see {@code Query}). */
  static int compare(JsonNode a, JsonNode b) {
    int ra = rank(a);
    int rb = rank(b);
    if (ra != rb) {
      return Integer.compare(ra, rb);
    }
    return switch (ra) {
      case 0 -> compareNumbers(a, b);
      case 1 -> a.textValue().compareTo(b.textValue());
      case 2 -> Boolean.compare(a.booleanValue(), b.booleanValue());
      default -> 0;
    };
  }

  /**
   * {@code value} as the JSON parser reads it back: an int node when it fits, else a long
   * node. Trees the store keeps must equal their re-read form, so that a checkpoint equals
   * the fold of the journal node for node.
   */
  static JsonNode number(long value) {
    return value == (int) value ? NODES.numberNode((int) value) : NODES.numberNode(value);
  }

  /** A number node in the form the parser gives its JSON text (see {@link #number(long)}). */
  static JsonNode canonicalNumber(JsonNode node) {
    if (node.isIntegralNumber()) {
      return node.canConvertToLong() ? number(node.longValue()) : NODES.numberNode(
          node.bigIntegerValue());
    }
    return node.isDouble() && finite(node) ? node
        : NODES.numberNode(finiteDouble(node.doubleValue()));
  }

  /**
   * {@code value}, if it is finite: JSON has no infinity and no NaN (Jackson would write one
   * as a string, which reads back as a string, not as the number the live view held).
   *
   * @throws IllegalArgumentException if it is not
   */
  static double finiteDouble(double value) {
    if (!Double.isFinite(value)) {
      throw new IllegalArgumentException("the number " + value + " is not finite; JSON has no "
          + "infinities and no NaN");
    }
    return value;
  }

  /**
   * A copy of {@code node} without null members in any object (array elements are kept),
   * numbers in their parsed form ({@link #canonicalNumber}).
   */
  static JsonNode withoutNulls(JsonNode node) {
    if (node.isObject()) {
      // Members in canonical order (names sorted by String.compareTo), as a parse of the
      // journal gives them: journal lines and checkpoints then write the tree as it is.
      ObjectNode source = (ObjectNode) node;
      ObjectNode copy = NODES.objectNode();
      if (membersSorted(source)) {
        for (Map.Entry<String, JsonNode> field : source.properties()) {
          if (!field.getValue().isNull()) {
            copy.set(field.getKey(), withoutNulls(field.getValue()));
          }
        }
      } else {
        for (String name : sortedNames(source)) {
          JsonNode value = source.get(name);
          if (!value.isNull()) {
            copy.set(name, withoutNulls(value));
          }
        }
      }
      return copy;
    }
    if (node.isArray()) {
      ArrayNode copy = NODES.arrayNode(node.size());
      for (JsonNode element : node) {
        copy.add(element.isNull() ? element : withoutNulls(element));
      }
      return copy;
    }
    if (node.isNumber()) {
      return canonicalNumber(node);
    }
    return node.deepCopy();
  }

  /**
   * What {@link #withoutNulls} makes of the tree the library's mapper maps {@code value} to,
   * built without the mapper: for a string, a boolean, or a JSON tree of plain nodes (objects,
   * arrays, strings, numbers, booleans, nulls, binary), whose copy is then taken node by node.
   * Null for any other value, a tree holding another kind of node (a POJO node, which
   * data binding would serialize), or a tree nested deeper than {@link #PLAIN_DEPTH}: the
   * caller maps those through Jackson, which refuses what it cannot map with its own error
   * (this copy recurses, and must not overflow the stack on a hostile tree).
   */
  static JsonNode plainTree(Object value) {
    if (value instanceof String text) {
      return NODES.textNode(text);
    }
    if (value instanceof Boolean bool) {
      return NODES.booleanNode(bool);
    }
    if (value instanceof JsonNode node) {
      return plain(node, 0) ? withoutNulls(node) : null;
    }
    return null;
  }

  /**
   * What {@link #withoutNulls} makes of {@code mapper.valueToTree(value)}, built straight from
   * the tokens the mapper's serializer writes for {@code value} ({@code writer} is the
   * mapper's writer without {@code WRAP_ROOT_VALUE}, the serialization {@code valueToTree}
   * runs), without first building the tree and then copying it: null members are left out,
   * members put in canonical order, numbers made canonical ({@link #canonicalNumber}), as the
   * tree data binding reads from those tokens would give after the copy. For a mapper that
   * reads trees as the library's does (duplicate members: the last one wins). Null when the
   * tokens hold something else than plain JSON (an embedded object), nothing, or containers
   * nested deeper than {@link #PLAIN_DEPTH}, or for a null value: the caller maps those
   * through {@code valueToTree} itself.
   *
   * @throws IllegalArgumentException if the value cannot be serialized, with Jackson's
   *     message, as {@code valueToTree} throws it
   */
  static JsonNode canonicalTree(ObjectMapper mapper, ObjectWriter writer, Object value) {
    if (value == null) {
      return null;
    }
    TokenBuffer tokens = new TokenBuffer(mapper, false);
    try {
      writer.writeValue(tokens, value);
      try (JsonParser parser = tokens.asParser()) {
        return parser.nextToken() == null ? null : canonicalValue(parser, 0);
      }
    } catch (IOException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /** The value at the parser's current token, canonical (see {@link #canonicalTree}). */
  private static JsonNode canonicalValue(JsonParser parser, int depth) throws IOException {
    switch (parser.currentToken()) {
      case START_OBJECT -> {
        if (depth >= PLAIN_DEPTH) {
          return null;
        }
        ObjectNode object = NODES.objectNode();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
          String name = parser.currentName();
          if (parser.nextToken() == JsonToken.VALUE_NULL) {
            object.remove(name);
            continue;
          }
          JsonNode member = canonicalValue(parser, depth + 1);
          if (member == null) {
            return null;
          }
          object.set(name, member);
        }
        return inCanonicalOrder(object);
      }
      case START_ARRAY -> {
        if (depth >= PLAIN_DEPTH) {
          return null;
        }
        ArrayNode array = NODES.arrayNode();
        while (parser.nextToken() != JsonToken.END_ARRAY) {
          JsonNode element = parser.currentToken() == JsonToken.VALUE_NULL ? NODES.nullNode()
              : canonicalValue(parser, depth + 1);
          if (element == null) {
            return null;
          }
          array.add(element);
        }
        return array;
      }
      case VALUE_STRING -> {
        return NODES.textNode(parser.getText());
      }
      case VALUE_NUMBER_INT -> {
        return switch (parser.getNumberType()) {
          case INT -> NODES.numberNode(parser.getIntValue());
          case LONG -> number(parser.getLongValue());
          default -> {
            java.math.BigInteger big = parser.getBigIntegerValue();
            yield big.bitLength() < 64 ? number(big.longValue()) : NODES.numberNode(big);
          }
        };
      }
      case VALUE_NUMBER_FLOAT -> {
        // The tree's double, float or decimal node becomes a double node (canonicalNumber).
        return NODES.numberNode(finiteDouble(parser.getDoubleValue()));
      }
      case VALUE_TRUE -> {
        return NODES.booleanNode(true);
      }
      case VALUE_FALSE -> {
        return NODES.booleanNode(false);
      }
      case VALUE_NULL -> {
        return NODES.nullNode();
      }
      default -> {
        return null;
      }
    }
  }

  /** How deep a tree {@link #plainTree} copies; deeper ones go through the mapper. */
  static final int PLAIN_DEPTH = 100;

  /**
   * Whether {@code node}, at nesting {@code depth}, and everything in it are nodes
   * {@link #withoutNulls} copies, no container deeper than {@link #PLAIN_DEPTH}.
   */
  private static boolean plain(JsonNode node, int depth) {
    switch (node.getNodeType()) {
      case OBJECT, ARRAY -> {
        if (depth >= PLAIN_DEPTH) {
          return false;
        }
        for (JsonNode child : node) {
          if (!plain(child, depth + 1)) {
            return false;
          }
        }
        return true;
      }
      case NUMBER -> {
        // An infinity or NaN goes through the mapper, whose tokens refuse it.
        return finite(node);
      }
      case STRING, BOOLEAN, NULL, BINARY -> {
        return true;
      }
      default -> {
        return false;
      }
    }
  }

  /**
   * The merge patch from {@code before} to {@code after}, both objects without null members:
   * removed fields as nulls, changed objects recursively, everything else whole. Empty when
   * they are equal.
   */
  static ObjectNode diff(ObjectNode before, ObjectNode after) {
    ObjectNode patch = NODES.objectNode();
    Iterator<String> names = before.fieldNames();
    while (names.hasNext()) {
      String name = names.next();
      if (!after.has(name)) {
        patch.putNull(name);
      }
    }
    for (Map.Entry<String, JsonNode> field : after.properties()) {
      JsonNode old = before.get(field.getKey());
      JsonNode now = field.getValue();
      if (old != null && old.equals(now)) {
        continue;
      }
      if (old != null && old.isObject() && now.isObject()) {
        patch.set(field.getKey(), diff((ObjectNode) old, (ObjectNode) now));
      } else {
        patch.set(field.getKey(), now);
      }
    }
    return patch;
  }

  /**
   * Whether an object of {@code node}, or of an object nested in it through object members,
   * has a null member: what {@link #merge} would drop when the node is merged into nothing
   * (arrays are merged whole, so what they hold does not count).
   */
  static boolean hasNullMember(JsonNode node) {
    for (Map.Entry<String, JsonNode> field : node.properties()) {
      JsonNode value = field.getValue();
      if (value.isNull() || (value.isObject() && hasNullMember(value))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Applies a merge patch, mutating {@code target} when it is an object; the patch's subtrees
   * are copied, so the result shares nothing with the patch.
   *
   * @return the patched value (null only when the patch is null: remove)
   */
  static JsonNode merge(JsonNode target, JsonNode patch) {
    if (patch == null || patch.isNull()) {
      return null;
    }
    if (!patch.isObject()) {
      return patch.deepCopy();
    }
    ObjectNode result = target != null && target.isObject() ? (ObjectNode) target
        : NODES.objectNode();
    for (Map.Entry<String, JsonNode> field : patch.properties()) {
      JsonNode merged = merge(result.get(field.getKey()), field.getValue());
      if (merged == null) {
        result.remove(field.getKey());
      } else {
        result.set(field.getKey(), merged);
      }
    }
    return result;
  }

  /** Whether the members of {@code node} are in canonical order (names sorted). */
  static boolean membersSorted(ObjectNode node) {
    String previous = null;
    for (java.util.Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (previous != null && previous.compareTo(name) > 0) {
        return false;
      }
      previous = name;
    }
    return true;
  }

  private static String[] sortedNames(ObjectNode node) {
    String[] names = new String[node.size()];
    int i = 0;
    for (java.util.Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      names[i++] = it.next();
    }
    java.util.Arrays.sort(names);
    return names;
  }

  /**
   * A shallow copy of {@code base} with each member named in {@code fields} taken from
   * {@code source} (removed where {@code source} lacks it), members in canonical order when
   * {@code base}'s are: a field {@code base} lacks is merged in at its place, not appended,
   * so the copy is built once. The values are the same nodes.
   */
  static ObjectNode withFields(ObjectNode base, ObjectNode source,
      java.util.Collection<String> fields) {
    java.util.TreeMap<String, JsonNode> added = null;
    for (String field : fields) {
      JsonNode value = source.get(field);
      if (value != null && !base.has(field)) {
        if (added == null) {
          added = new java.util.TreeMap<>();
        }
        added.put(field, value);
      }
    }
    ObjectNode out = new ObjectNode(NODES,
        new java.util.LinkedHashMap<>((int) ((base.size() + fields.size()) / 0.75f) + 1));
    Iterator<Map.Entry<String, JsonNode>> adds = added == null ? null
        : added.entrySet().iterator();
    Map.Entry<String, JsonNode> next = adds == null ? null : adds.next();
    for (Map.Entry<String, JsonNode> member : base.properties()) {
      String name = member.getKey();
      while (next != null && next.getKey().compareTo(name) < 0) {
        out.set(next.getKey(), next.getValue());
        next = adds.hasNext() ? adds.next() : null;
      }
      if (fields.contains(name)) {
        JsonNode value = source.get(name);
        if (value != null) {
          out.set(name, value);
        }
      } else {
        out.set(name, member.getValue());
      }
    }
    while (next != null) {
      out.set(next.getKey(), next.getValue());
      next = adds.hasNext() ? adds.next() : null;
    }
    return membersSorted(base) ? out : inCanonicalOrder(out);
  }

  /**
   * {@code node} with its members in canonical order: itself when they are, else a shallow
   * copy in that order (the values are the same nodes).
   */
  static ObjectNode inCanonicalOrder(ObjectNode node) {
    if (membersSorted(node)) {
      return node;
    }
    ObjectNode ordered = NODES.objectNode();
    for (String name : sortedNames(node)) {
      ordered.set(name, node.get(name));
    }
    return ordered;
  }

  /**
   * The compact JSON size of {@code after}, an object that differs from {@code before} (of
   * {@code beforeBytes}, its exact compact size) at most in the top-level members named in
   * {@code fields}: {@code before}'s size with those members' bytes taken out and
   * {@code after}'s put in. An object's compact JSON is its braces, its members
   * ({@code "name":value}) and a comma between two members, so the members named are the
   * only ones measured; the result equals {@link #bytes}{@code (after)}.
   */
  static int bytesAfterFields(ObjectNode before, int beforeBytes, ObjectNode after,
      java.util.Collection<String> fields) {
    long members = beforeBytes - 2L - Math.max(0, before.size() - 1);
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (String field : fields) {
      if (!seen.add(field)) {
        continue;
      }
      JsonNode old = before.get(field);
      if (old != null) {
        members -= memberBytes(field, old);
      }
      JsonNode now = after.get(field);
      if (now != null) {
        members += memberBytes(field, now);
      }
    }
    return Math.toIntExact(2 + members + Math.max(0, after.size() - 1));
  }

  /** Bytes of one member of a compact object: its quoted name, the colon, its value. */
  private static long memberBytes(String name, JsonNode value) {
    long quoted = plainTextBytes(name);
    if (quoted < 0) {
      quoted = writtenBytes(NODES.textNode(name));
    }
    return quoted + 1 + countedBytes(value);
  }

  /**
   * The written size of a quoted string that the generator writes as it is (printable ASCII
   * other than quote and backslash), or -1 for any other string (measured by writing it).
   */
  private static long plainTextBytes(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
        return -1;
      }
    }
    return text.length() + 2L;
  }

  /** Characters of {@code value} in decimal, sign included. */
  private static int digits(long value) {
    if (value == Long.MIN_VALUE) {
      return 20;
    }
    int n = value < 0 ? 2 : 1;
    for (long v = Math.abs(value); v >= 10; v /= 10) {
      n++;
    }
    return n;
  }
}
