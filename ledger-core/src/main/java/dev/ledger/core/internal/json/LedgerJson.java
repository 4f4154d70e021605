package dev.ledger.core.internal.json;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamWriteConstraints;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * The one JSON configuration of the library, so that the same value always gives the same
 * bytes (promise 10, deterministic files):
 *
 * <ul>
 *   <li>object keys sorted (POJO properties, map entries and {@code JsonNode} objects);
 *   <li>{@code java.time} values as ISO-8601 strings, never numeric timestamps;
 *   <li>compact output ({@link #canonical}) for journal lines and digests, two-space
 *       indentation ({@link #pretty}) for whole files meant to be read with {@code cat};
 *   <li>strict reading: duplicate keys, trailing tokens and non-standard JSON are errors;
 *       nesting depth is bounded at {@link #MAX_NESTING_DEPTH} and token sizes by
 *       Jackson's defaults, both ways: {@link #checkDepth} refuses before writing what the
 *       reader would refuse, so a value that could be written can always be read back.
 * </ul>
 *
 * Thread-safe: the mapper is configured once and only used.
 */
public final class LedgerJson {
  /** Deepest nesting accepted when reading (Jackson's default is 1000). */
  public static final int MAX_NESTING_DEPTH = 500;

  private static final ObjectMapper MAPPER = JsonMapper.builder()
      .addModule(new JavaTimeModule())
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
      .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
      .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
      .enable(com.fasterxml.jackson.databind.MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
      .enable(JsonNodeFeature.WRITE_PROPERTIES_SORTED)
      .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
      .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
      .build();

  static {
    // Writing and reading share one depth bound, so whatever is written can be read back.
    MAPPER.getFactory().setStreamReadConstraints(StreamReadConstraints.builder()
        .maxNestingDepth(MAX_NESTING_DEPTH)
        .build());
    MAPPER.getFactory().setStreamWriteConstraints(StreamWriteConstraints.builder()
        .maxNestingDepth(MAX_NESTING_DEPTH)
        .build());
  }

  /**
   * Reads whole files' trees ({@link #parse}): the mapper's settings, but with a factory of
   * its own that does not intern field names, and with duplicate keys refused by the tree
   * reader instead of the parser. Names stay canonical within one parse, so the objects of a
   * large file share their names' strings (a checkpoint's documents hold the same few names);
   * interning the many names that occur once (document keys, queue sequence numbers) would
   * cost a string intern each. The parser's duplicate detection costs a hash set per object,
   * where the tree reader sees a repeated key for free as the object it builds already has it.
   * The factory is separate so that the parsers of {@link #mapper()} are unchanged.
   */
  private static final ObjectReader TREES;
  /**
   * The factory of {@link #TREES}, copied for the small records ({@link #parseRecord},
   * {@link #treeParser}): a parser that adds a name to its factory's symbol table copies the
   * table first, and merges its names back when it closes; journal lines each add names seen
   * once (document keys, queue sequence numbers), so parsers of one shared factory each copied
   * a table of thousands of names. Each thread parses records with a copy of its own
   * ({@link #RECORD_FACTORIES}), renewed every {@link #RECORD_FACTORY_USES} records: its table
   * keeps the names every record has (the record's keys, the events'), so a record's parser
   * finds them instead of adding them to an empty table, and stays small enough that copying
   * it costs less than adding them would (at 64 records the copies cost more than a fresh
   * table per record; at 8 a line of a collection journal allocates about 40% less than with
   * a fresh table). (Turning canonical names off instead makes Jackson
   * read bytes through its UTF-8 reader, which failed to parse valid lines when stores read
   * the same journal concurrently.)
   */
  private static final com.fasterxml.jackson.core.JsonFactory RECORD_FACTORY;
  /** Records one thread's copy of {@link #RECORD_FACTORY} parses before it is renewed. */
  private static final int RECORD_FACTORY_USES = 8;
  private static final ThreadLocal<RecordFactory> RECORD_FACTORIES =
      ThreadLocal.withInitial(RecordFactory::new);

  /** One thread's copy of {@link #RECORD_FACTORY}, renewed before its table grows large. */
  private static final class RecordFactory {
    private com.fasterxml.jackson.core.JsonFactory factory;
    private int uses = RECORD_FACTORY_USES;

    com.fasterxml.jackson.core.JsonFactory next() {
      if (++uses > RECORD_FACTORY_USES) {
        factory = RECORD_FACTORY.copy();
        uses = 1;
      }
      return factory;
    }
  }

  static {
    com.fasterxml.jackson.core.JsonFactory files =
        new com.fasterxml.jackson.core.JsonFactoryBuilder(MAPPER.getFactory())
            .disable(com.fasterxml.jackson.core.JsonFactory.Feature.INTERN_FIELD_NAMES)
            .disable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .streamReadConstraints(MAPPER.getFactory().streamReadConstraints())
            .build();
    TREES = MAPPER.reader().with(files)
        .with(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);
    RECORD_FACTORY = files;
  }

  /** {@link #TREES} for one member of a value being streamed ({@link #treeReader()}). */
  private static final ObjectReader MEMBERS = TREES
      .without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private static final ObjectWriter COMPACT = MAPPER.writer();
  private static final ObjectWriter PRETTY = MAPPER.writerWithDefaultPrettyPrinter();

  /** Maps callers' values when no store configured another mapper (event payloads). */
  private static final ObjectMapper VALUES = valueMapperBuilder().build();

  private LedgerJson() {}

  /** The shared mapper of the library's own formats. Do not reconfigure it. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /**
   * A builder preset for mapping callers' values (states, payloads) to and from trees: the
   * settings of {@link #mapper()} ({@code java.time} as ISO-8601 strings, sorted properties),
   * except that unknown properties are ignored when reading, so that a stored value with a
   * field its class no longer has still loads. What the mapper produces is only a tree: the
   * bytes on disk are always written by {@link #canonical}, whatever the mapper's settings.
   *
   * @return a new builder, which the caller may configure further
   */
  public static JsonMapper.Builder valueMapperBuilder() {
    return JsonMapper.builder()
        .addModule(new JavaTimeModule())
        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
        .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
        .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
        .enable(com.fasterxml.jackson.databind.MapperFeature.SORT_PROPERTIES_ALPHABETICALLY);
  }

  /** A mapper with the settings of {@link #valueMapperBuilder}; shared, never reconfigured. */
  public static ObjectMapper values() {
    return VALUES;
  }

  /**
   * Maps any Jackson-serializable value (or a {@code JsonNode}, copied) to a tree.
   *
   * @throws IllegalArgumentException if a tree is nested deeper than {@link #MAX_NESTING_DEPTH}
   */
  public static JsonNode tree(Object value) {
    return tree(MAPPER, value);
  }

  /**
   * {@link #tree(ObjectMapper, Object)} for a value whose canonical form is wanted next (a
   * ledger's new state): the same checks, failures and canonical bytes, but a
   * {@code JsonNode} is copied with each object's members in key order, the order its
   * canonical form and a re-read of it have, in one pass that also makes
   * {@link #checkDepth}'s checks. {@link #normalizedInPlace} then has no object to build a
   * second time, where a plain copy of an object whose members are out of order was built
   * twice (the copy, then the sorted object). Value nodes are shared, as
   * {@code deepCopy} shares them. Recursion is bounded by {@link #MAX_NESTING_DEPTH}: a
   * deeper (or cyclic) tree is refused before the stack can overflow.
   *
   * @throws IllegalArgumentException as {@link #tree(ObjectMapper, Object)}
   */
  public static JsonNode sortedTree(ObjectMapper mapper, Object value) {
    if (value instanceof JsonNode node) {
      return sortedCopy(node, 0, MAPPER.getFactory().streamReadConstraints());
    }
    return tree(mapper, value);
  }

  private static JsonNode sortedCopy(JsonNode node, int depth, StreamReadConstraints read) {
    if (node.isObject()) {
      checkContainerDepth(depth);
      int size = node.size();
      String[] names = new String[size];
      int count = 0;
      boolean sorted = true;
      for (java.util.Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
        String name = it.next();
        checkNameLength(name, read);
        if (count > 0 && names[count - 1].compareTo(name) > 0) {
          sorted = false;
        }
        names[count++] = name;
      }
      if (!sorted) {
        java.util.Arrays.sort(names, 0, count);
      }
      java.util.Map<String, JsonNode> members =
          new java.util.LinkedHashMap<>(Math.max(4, (int) (count / 0.75f) + 1));
      for (int i = 0; i < count; i++) {
        members.put(names[i], sortedCopy(node.get(names[i]), depth + 1, read));
      }
      return new com.fasterxml.jackson.databind.node.ObjectNode(
          com.fasterxml.jackson.databind.node.JsonNodeFactory.instance, members);
    }
    if (node.isArray()) {
      checkContainerDepth(depth);
      com.fasterxml.jackson.databind.node.ArrayNode copy =
          new com.fasterxml.jackson.databind.node.ArrayNode(
              com.fasterxml.jackson.databind.node.JsonNodeFactory.instance, node.size());
      for (JsonNode item : node) {
        copy.add(sortedCopy(item, depth + 1, read));
      }
      return copy;
    }
    checkLeaf(node, read);
    return node.deepCopy();
  }

  private static void checkContainerDepth(int depth) {
    if (depth + 1 > MAX_NESTING_DEPTH) {
      throw new IllegalArgumentException("JSON nesting depth exceeds the maximum of "
          + MAX_NESTING_DEPTH);
    }
  }

  private static void checkNameLength(String name, StreamReadConstraints read) {
    int length = name.length();
    if (length > read.getMaxNameLength()) {
      throw new IllegalArgumentException("JSON field name of " + length
          + " characters exceeds the maximum of " + read.getMaxNameLength());
    }
  }

  private static void checkLeaf(JsonNode current, StreamReadConstraints read) {
    if (current.isTextual()) {
      if (current.textValue().length() > read.getMaxStringLength()) {
        throw new IllegalArgumentException("JSON string of " + current.textValue().length()
            + " characters exceeds the maximum of " + read.getMaxStringLength());
      }
    } else if (current.isBigInteger() || current.isBigDecimal()) {
      // Digits from the bit length: toString() of a huge number is itself quadratic.
      java.math.BigInteger unscaled = current.isBigInteger() ? current.bigIntegerValue()
          : current.decimalValue().unscaledValue();
      long digits = (long) (unscaled.bitLength() * 0.30103) + 1;
      // The written form may add a sign, a point and an exponent: keep a margin.
      if (digits > read.getMaxNumberLength() - 16) {
        throw new IllegalArgumentException("JSON number of about " + digits
            + " digits exceeds the maximum of " + (read.getMaxNumberLength() - 16));
      }
    }
  }

  /**
   * Returns {@code node} if it can be read back once written: nested at most
   * {@link #MAX_NESTING_DEPTH} deep, and no string, field name or number longer than the
   * reader accepts (Jackson's {@link StreamReadConstraints} defaults: 20,000,000 characters
   * for a string, 50,000 for a name, 1,000 for a number). A value the reader would refuse
   * must be refused before it is written: a committed record that no reader can parse
   * would make its ledger unreadable for good. A container is refused for its depth before
   * its children are walked, so a hostile (deep or cyclic) tree cannot overflow the stack
   * before it is refused.
   *
   * @throws IllegalArgumentException naming the bound and the offending size otherwise
   */
  public static JsonNode checkDepth(JsonNode node) {
    checkTree(node, 0, MAPPER.getFactory().streamReadConstraints());
    return node;
  }

  /**
   * {@link #checkDepth}'s walk. It recurses, as {@link #sortedCopy} does, but checks a
   * container's depth before it descends into it: the stack holds at most
   * {@link #MAX_NESTING_DEPTH} frames of it, and a deeper (or cyclic) tree is refused first.
   * Every commit checks its state and payloads here: two deques and a boxed depth per node
   * cost more than the walk.
   */
  private static void checkTree(JsonNode current, int depth, StreamReadConstraints read) {
    if (!current.isContainerNode()) {
      checkLeaf(current, read);
      return;
    }
    checkContainerDepth(depth);
    if (current.isObject()) {
      for (java.util.Map.Entry<String, JsonNode> member : current.properties()) {
        checkNameLength(member.getKey(), read);
        checkTree(member.getValue(), depth + 1, read);
      }
    } else {
      for (JsonNode child : current) {
        checkTree(child, depth + 1, read);
      }
    }
  }

  /** Compact UTF-8 JSON with sorted keys: the canonical form digests are computed over. */
  public static byte[] canonical(JsonNode node) {
    try (ByteArrayBuilder bytes = new ByteArrayBuilder(256)) {
      try (JsonGenerator out = MAPPER.getFactory().createGenerator(bytes)) {
        CanonicalJson.write(out, node);
      }
      return bytes.toByteArray();
    } catch (CanonicalJson.Unsupported e) {
      return canonicalByJackson(node);
    } catch (IOException e) {
      throw new IllegalArgumentException("Value cannot be written as JSON: " + e.getMessage(), e);
    }
  }

  /**
   * The length of {@link #canonical}{@code (node)}, without the bytes: what a size check
   * needs. Counted from the tree where it can ({@link CanonicalSize}), else as a generator
   * writing it flushes.
   *
   * @throws IllegalArgumentException if the value cannot be written as JSON
   */
  public static int canonicalSize(JsonNode node) {
    long counted = CanonicalSize.of(node);
    if (counted != CanonicalSize.UNCOUNTED) {
      return Math.toIntExact(counted);
    }
    ByteCount count = new ByteCount();
    try (JsonGenerator out = MAPPER.getFactory().createGenerator(count)) {
      if (!writeCanonical(out, node)) {
        return canonicalByJackson(node).length;
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("Value cannot be written as JSON: " + e.getMessage(), e);
    }
    return Math.toIntExact(count.bytes);
  }

  /** An output stream that only counts. */
  private static final class ByteCount extends OutputStream {
    long bytes;

    @Override
    public void write(int b) {
      bytes++;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      bytes += len;
    }
  }

  /**
   * Writes the canonical form of {@code node} to {@code out}, a generator of
   * {@link #generator}: what {@link #canonical} returns, without a copy, for the node kinds
   * that parsing produces.
   *
   * @return false if the tree holds another kind (floats, decimals, POJO nodes): part of it
   *     may have been written, and the caller discards the output and uses {@link #canonical}
   * @throws IOException from the generator, or (a {@code JsonProcessingException}) if the
   *     value cannot be written as JSON
   */
  public static boolean writeCanonical(JsonGenerator out, JsonNode node) throws IOException {
    try {
      CanonicalJson.write(out, node);
      return true;
    } catch (CanonicalJson.Unsupported e) {
      return false;
    }
  }

  /** A compact generator writing to {@code out} with the library's settings. */
  public static JsonGenerator generator(OutputStream out) throws IOException {
    return MAPPER.getFactory().createGenerator(out);
  }

  /**
   * The tree that {@code parse(canonical(node))} gives, built without writing and parsing
   * where it can: {@code node} itself, normalized in place, which the caller owns and must
   * not use afterwards (a fresh tree from {@link #tree}). The caller has checked that the
   * tree can be written ({@link #canonicalSize}).
   *
   * @throws IOException if the fallback re-read fails
   */
  public static JsonNode reread(JsonNode node) throws IOException {
    JsonNode normal = CanonicalJson.normalized(node);
    return normal != null ? normal : parse(canonical(node));
  }

  /**
   * The first step of {@link #reread}: the tree that parsing {@code node}'s canonical bytes
   * gives, built in place (the caller owns {@code node} and must not use it afterwards, except
   * to pass it to {@link #reread}), or null when the tree holds a node kind this does not
   * handle (floats, big decimals, binary, POJO nodes) and only a real re-read gives it. A tree
   * returned has exactly {@code node}'s canonical bytes.
   */
  public static JsonNode normalizedInPlace(JsonNode node) {
    return CanonicalJson.normalized(node);
  }

  private static byte[] canonicalByJackson(JsonNode node) {
    try {
      return COMPACT.writeValueAsBytes(node);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("Value cannot be written as JSON: " + e.getMessage(), e);
    }
  }

  /**
   * Indented UTF-8 JSON with sorted keys and a trailing newline, for whole files: the bytes of
   * Jackson's default pretty printer, written by {@link CanonicalWriter#prettyTree} where it
   * takes the tree's node kinds (a ledger writes its checkpoint here every
   * {@code checkpointInterval} commits; the generator and its printer cost several times the
   * direct writer), else by Jackson.
   */
  public static byte[] pretty(JsonNode node) {
    CanonicalWriter out = new CanonicalWriter(4096);
    if (out.prettyTree(node)) {
      out.raw('\n');
      return java.util.Arrays.copyOf(out.array(), out.size());
    }
    return prettyByJackson(node);
  }

  /** {@link #pretty} as Jackson's writer makes it, which defines those bytes. */
  static byte[] prettyByJackson(JsonNode node) {
    try {
      byte[] body = PRETTY.writeValueAsBytes(node);
      byte[] out = new byte[body.length + 1];
      System.arraycopy(body, 0, out, 0, body.length);
      out[body.length] = '\n';
      return out;
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("Value cannot be written as JSON: " + e.getMessage(), e);
    }
  }

  /**
   * Parses strict JSON, as {@link #mapper()} would (duplicate keys, trailing tokens and
   * non-standard JSON refused, nesting bounded), without interned field names.
   *
   * @throws IOException (a {@code JsonProcessingException}) if the bytes are not one valid
   *     JSON value
   */
  public static JsonNode parse(byte[] bytes, int offset, int length) throws IOException {
    return checked(TREES.readTree(bytes, offset, length));
  }

  /**
   * Parses strict JSON as {@link #parse} does, for one of many small records (a journal
   * line): its parser has a symbol table of its own, so the parse neither copies nor grows a
   * shared one.
   *
   * @throws IOException (a {@code JsonProcessingException}) if the bytes are not one valid
   *     JSON value
   */
  public static JsonNode parseRecord(byte[] bytes, int offset, int length) throws IOException {
    try (JsonParser in = treeParser(bytes, offset, length)) {
      return checked(TREES.readTree(in));
    }
  }

  private static JsonNode checked(JsonNode node) throws JsonParseFailure {
    if (node == null || node.isMissingNode()) {
      throw new JsonParseFailure("no JSON value");
    }
    return node;
  }

  /**
   * A streaming parser over {@code bytes[offset..offset+length)} with the settings of
   * {@link #parse} (nesting bounded, non-standard JSON refused), for a reader that walks a
   * record and builds some of its members as trees: its symbol table is its own (see
   * {@link #parseRecord}), and duplicate keys are not detected by the parser; a tree built
   * from it with {@link #treeReader()} refuses them.
   *
   * @throws IOException if the parser cannot be created
   */
  public static JsonParser treeParser(byte[] bytes, int offset, int length) throws IOException {
    return RECORD_FACTORIES.get().next().createParser(bytes, offset, length);
  }

  /**
   * Reads one value at a time from a parser of {@link #treeParser} as a tree, refusing a
   * repeated key in any object it builds, and leaving what follows the value to the caller.
   *
   * @return the reader; shared, immutable
   */
  public static ObjectReader treeReader() {
    return MEMBERS;
  }

  /**
   * Parses strict JSON as {@link #parse(byte[], int, int)} does, read from {@code in} through
   * the parser's own small buffer: for a large file (a checkpoint), which then never needs an
   * array of its size. Does not close {@code in}.
   *
   * @throws IOException (a {@code JsonProcessingException}) if the bytes are not one valid
   *     JSON value, or what reading {@code in} threw
   */
  public static JsonNode parse(java.io.InputStream in) throws IOException {
    return checked(TREES.readTree(in));
  }

  /** Parses strict JSON. */
  public static JsonNode parse(byte[] bytes) throws IOException {
    return parse(bytes, 0, bytes.length);
  }

  /**
   * Maps {@code value} to a tree with {@code mapper}; a {@code JsonNode} is copied instead.
   *
   * @throws IllegalArgumentException if the value cannot be mapped, or the tree is nested
   *     deeper than {@link #MAX_NESTING_DEPTH}
   */
  public static JsonNode tree(ObjectMapper mapper, Object value) {
    if (value instanceof JsonNode node) {
      return checkDepth(node).deepCopy();
    }
    if ((mapper == MAPPER || mapper == VALUES) && (value instanceof Map || value instanceof List)) {
      JsonNode plain = plainTree(value, 0);
      if (plain != null) {
        return checkDepth(plain);
      }
    }
    return checkDepth(mapper.valueToTree(value));
  }

  /**
   * The tree {@code valueToTree} of {@link #mapper()} or {@link #values()} gives for a value
   * made only of the JDK's maps with string keys and lists, strings, ints, longs, booleans and
   * nulls (an event payload such as {@code Map.of("task", "t-1", "attempt", 3)}), built
   * directly instead of through Jackson's token buffer and tree reader: the same node classes
   * (an {@code Integer} an {@code IntNode}, a {@code Long} a {@code LongNode}) and the same
   * member order (a sorted map's own, any other map's sorted by key, as
   * {@code ORDER_MAP_ENTRIES_BY_KEYS} does). Null for any other value, anything nested deeper
   * than {@link #MAX_NESTING_DEPTH}, or a null key: the mapper then maps it, and reports what
   * it refuses.
   */
  private static JsonNode plainTree(Object value, int depth) {
    if (value == null) {
      return NullNode.getInstance();
    } else if (value instanceof String text) {
      return TextNode.valueOf(text);
    } else if (value instanceof Integer number) {
      return IntNode.valueOf(number);
    } else if (value instanceof Long number) {
      return LongNode.valueOf(number);
    } else if (value instanceof Boolean flag) {
      return BooleanNode.valueOf(flag);
    } else if (depth >= MAX_NESTING_DEPTH
        || !value.getClass().getName().startsWith("java.util.")) {
      return null;
    } else if (value instanceof Map<?, ?> map) {
      ObjectNode node = JsonNodeFactory.instance.objectNode();
      if (map instanceof SortedMap) {
        for (Map.Entry<?, ?> entry : map.entrySet()) {
          if (!(entry.getKey() instanceof String name) || !putPlain(node, name, entry.getValue(),
              depth)) {
            return null;
          }
        }
        return node;
      }
      String[] names = new String[map.size()];
      int i = 0;
      for (Object key : map.keySet()) {
        if (!(key instanceof String name) || i == names.length) {
          return null;
        }
        names[i++] = name;
      }
      if (i != names.length) {
        return null; // changed while read
      }
      Arrays.sort(names);
      for (String name : names) {
        if (!putPlain(node, name, map.get(name), depth)) {
          return null;
        }
      }
      return node;
    } else if (value instanceof List<?> list) {
      ArrayNode node = JsonNodeFactory.instance.arrayNode(list.size());
      for (Object item : list) {
        JsonNode child = plainTree(item, depth + 1);
        if (child == null) {
          return null;
        }
        node.add(child);
      }
      return node;
    }
    return null;
  }

  private static boolean putPlain(ObjectNode node, String name, Object value, int depth) {
    JsonNode child = plainTree(value, depth + 1);
    if (child == null) {
      return false;
    }
    node.set(name, child);
    return true;
  }

  /**
   * Maps a tree to {@code type} with {@code mapper}; a {@code JsonNode} type (or subtype)
   * gets a copy.
   *
   * @throws JsonProcessingException if the tree does not fit the type (a
   *     {@link com.fasterxml.jackson.databind.JsonMappingException} names the path)
   */
  public static <T> T convert(ObjectMapper mapper, JsonNode node, JavaType type)
      throws JsonProcessingException {
    if (JsonNode.class.isAssignableFrom(type.getRawClass())) {
      // A copy: Jackson would hand back the (shared) tree itself for a tree type.
      JsonNode copy = node.deepCopy();
      if (!type.getRawClass().isInstance(copy)) {
        throw MismatchedInputException.from(null, type, "a JSON " + node.getNodeType()
            .name().toLowerCase(java.util.Locale.ROOT) + " is not a " + type.getRawClass()
            .getSimpleName());
      }
      @SuppressWarnings("unchecked") // checked by isInstance above
      T tree = (T) copy;
      return tree;
    }
    return mapper.treeToValue(node, type);
  }

  /**
   * Where in a value a mapping failed, as a JSON Pointer (RFC 6901): {@code /tasks/t1/status},
   * {@code /done/0}; the empty string for the value itself.
   */
  public static String pointer(JsonProcessingException failure) {
    if (!(failure instanceof JsonMappingException mapping)) {
      return "";
    }
    StringBuilder out = new StringBuilder();
    for (JsonMappingException.Reference ref : mapping.getPath()) {
      out.append('/');
      if (ref.getFieldName() != null) {
        out.append(ref.getFieldName().replace("~", "~0").replace("/", "~1"));
      } else if (ref.getIndex() >= 0) {
        out.append(ref.getIndex());
      } else {
        out.append('?');
      }
    }
    return out.toString();
  }

  /** Lower-case hex SHA-256 of {@code bytes}. */
  public static String sha256Hex(byte[] bytes) {
    return sha256Hex(bytes, 0, bytes.length);
  }

  /**
   * Lower-case hex SHA-256 of {@code length} bytes of {@code bytes} from {@code offset}: the
   * same digest as Guava's {@code Hashing.sha256()}, from a digest this thread keeps (every
   * commit derives its events' ids here; a digest per call and a hex builder cost as much as
   * the hash itself). Thread-safe: each thread hashes with its own digest.
   *
   * @throws IndexOutOfBoundsException if the range is not inside {@code bytes} (the thread's
   *     digest is then left as it was)
   */
  public static String sha256Hex(byte[] bytes, int offset, int length) {
    java.util.Objects.checkFromIndexSize(offset, length, bytes.length);
    java.security.MessageDigest digest = SHA256.get();
    digest.update(bytes, offset, length);
    return HEX.formatHex(digest.digest());
  }

  /** Lower-case hex SHA-256 of the UTF-8 bytes of {@code text}. */
  public static String sha256Hex(String text) {
    return sha256Hex(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  private static final java.util.HexFormat HEX = java.util.HexFormat.of();

  /** A digest per thread; {@code digest()} leaves it reset for the next use. */
  private static final ThreadLocal<java.security.MessageDigest> SHA256 =
      ThreadLocal.withInitial(() -> {
        try {
          return java.security.MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
          throw new IllegalStateException("SHA-256 is not available", e);
        }
      });

  /** Thrown for input that parses to no JSON value at all (empty or whitespace). */
  public static final class JsonParseFailure extends IOException {
    private static final long serialVersionUID = 1L;

    JsonParseFailure(String message) {
      super(message);
    }
  }
}
