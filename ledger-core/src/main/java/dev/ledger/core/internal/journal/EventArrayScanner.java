package dev.ledger.core.internal.journal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.internal.json.JsonFields;
import dev.ledger.core.internal.json.LedgerJson;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a record's {@code events} array straight from the line's bytes, without a JSON
 * parser, for the shape this library writes and nothing else; the rest of the record (its
 * shell, its state or patch) is then parsed as before from the record with that array cut
 * out ({@link #withoutEvents}). A record of 100 events is nearly all events, and the
 * streaming parser's token-by-token work on them (names looked up in its symbol table, every
 * string and number typed) was most of the cost of {@code verify()} and of a replay.
 *
 * <p><b>What it accepts</b> is a strict subset of the JSON the parser accepts, read to the
 * same values: the record must begin {@code {"command":{"digest":S,"id":S},"committedAt":S,
 * "events":[} (the command optional; keys in the canonical order, no whitespace), each event
 * an object with the keys {@code id}, {@code type}, {@code occurredAt} (strings),
 * {@code sequence} (a positive integer), {@code payload} (any value), and optionally
 * {@code commandId}, {@code operationId} (strings), each once, in any order, with no
 * whitespace anywhere. Strings must be printable ASCII without escapes and shorter than
 * {@value #MAX_STRING} bytes; numbers integers of at most 18 digits without a leading zero;
 * payloads nested at most {@value #MAX_DEPTH} deep with at most {@value #MAX_KEYS} keys per
 * object, none repeated; an {@code occurredAt} an instant. Anything else (escapes, non-ASCII
 * text, floats, whitespace, a repeated or unknown key, a malformed value) makes
 * {@link #scan} answer null and the caller decodes the line as it did before, so that every
 * line outside the subset, valid or not, reads or fails exactly as it did. Payload trees, when
 * asked for, are built with the mapper's node factory and the nodes its tree reader builds
 * for these kinds ({@code TextNode}, {@code IntNode} for an integer that fits an int, else
 * {@code LongNode}, booleans, null, objects, arrays), as {@link PayloadTrees} does.
 *
 * <p>Stateless apart from one call's own objects; thread-safe.
 */
final class EventArrayScanner {
  static final int MAX_DEPTH = 64;
  static final int MAX_KEYS = 32;
  static final int MAX_STRING = 1 << 20;
  /** Longest payload key accepted (far below the parser's bound on names). */
  static final int MAX_KEY = 1024;
  private static final JsonNodeFactory NODES = LedgerJson.mapper().getNodeFactory();
  private static final byte[] COMMAND = ascii("{\"command\":{\"digest\":");
  private static final byte[] COMMAND_ID = ascii(",\"id\":");
  private static final byte[] COMMITTED_AT = ascii("\"committedAt\":");
  private static final byte[] EVENTS = ascii(",\"events\":[");
  /** Event key names, by the bit each sets once read. */
  private static final byte[][] KEYS = {ascii("commandId"), ascii("id"), ascii("occurredAt"),
      ascii("operationId"), ascii("payload"), ascii("sequence"), ascii("type")};
  private static final int K_COMMAND_ID = 0;
  private static final int K_ID = 1;
  private static final int K_OCCURRED_AT = 2;
  private static final int K_OPERATION_ID = 3;
  private static final int K_PAYLOAD = 4;
  private static final int K_SEQUENCE = 5;
  private static final int K_TYPE = 6;
  private static final int REQUIRED = 1 << K_ID | 1 << K_OCCURRED_AT | 1 << K_PAYLOAD
      | 1 << K_SEQUENCE | 1 << K_TYPE;

  /** One event as read, before the record's root and revision are known. */
  record Scanned(String id, long sequence, String type, Instant occurredAt, JsonNode payload,
      String commandId, String operationId) {}

  /**
   * The events array of a record: {@code bytes[open]} is its {@code [} and
   * {@code bytes[close]} its {@code ]}.
   */
  record Events(int open, int close, List<Scanned> events) {}

  /** Thrown inside a scan for anything outside the accepted shape; no stack trace. */
  private static final class Outside extends RuntimeException {
    private static final long serialVersionUID = 1L;
    static final Outside INSTANCE = new Outside();

    private Outside() {
      super("outside the scanned subset", null, false, false);
    }
  }

  private static final VarHandle WORDS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGH = 0x8080808080808080L;

  private static final int NAMES = 64;

  private final byte[] b;
  /** Payload keys read in this record, by a hash of their length and first byte. */
  private final String[] names = new String[NAMES];
  private final int limit;
  private final boolean trees;
  private int p;
  private String lastType;
  private String lastCommandId;
  private int lastOccurredFrom = -1;
  private int lastOccurredLength;
  private Instant lastOccurred;
  /** Key byte ranges of the open payload objects, by depth (start, length pairs). */
  private int[][] keys = new int[8][];

  private EventArrayScanner(byte[] bytes, int limit, boolean trees) {
    this.b = bytes;
    this.limit = limit;
    this.trees = trees;
  }

  /**
   * The events array of the record in {@code bytes[offset..offset+length)}, or null if the
   * record is not in the accepted shape (see the class comment).
   *
   * @param trees whether to build payload trees (else each payload is {@link NullNode}, after
   *     being checked)
   */
  static Events scan(byte[] bytes, int offset, int length, boolean trees) {
    try {
      return new EventArrayScanner(bytes, offset + length, trees).record(offset);
    } catch (RuntimeException e) {
      // Outside the subset, an instant that does not parse, or anything unforeseen: the
      // caller's decoding of the whole line decides, as it did before this scan.
      return null;
    }
  }

  /**
   * The record with its events array emptied: the bytes before its {@code [} and from its
   * {@code ]} on, for the shell's parser.
   */
  static byte[] withoutEvents(byte[] bytes, int offset, int length, Events events) {
    int head = events.open() + 1 - offset;
    int tail = offset + length - events.close();
    byte[] out = new byte[head + tail];
    System.arraycopy(bytes, offset, out, 0, head);
    System.arraycopy(bytes, events.close(), out, head, tail);
    return out;
  }

  private Events record(int offset) {
    p = offset;
    if (startsWith(COMMAND)) {
      p += COMMAND.length;
      string();
      expect(COMMAND_ID);
      string();
      need('}');
      need(',');
    } else {
      need('{');
    }
    expect(COMMITTED_AT);
    int at = p + 1;
    string();
    int committedFrom = at;
    int committedLength = p - 1 - at;
    expect(EVENTS);
    int open = p - 1;
    // Events share the commit's time: its text is remembered, parsed only if an event has it.
    lastOccurredFrom = committedFrom;
    lastOccurredLength = committedLength;
    lastOccurred = null;
    List<Scanned> events = new ArrayList<>();
    if (peek() == ']') {
      p++;
    } else {
      while (true) {
        events.add(event());
        byte c = next();
        if (c == ']') {
          break;
        }
        if (c != ',') {
          throw Outside.INSTANCE;
        }
      }
    }
    return new Events(open, p - 1, events);
  }

  private Scanned event() {
    need('{');
    String id = null;
    String type = null;
    Instant occurredAt = null;
    JsonNode payload = null;
    String commandId = null;
    String operationId = null;
    long sequence = 0;
    int seen = 0;
    if (peek() == '}') {
      throw Outside.INSTANCE;
    }
    while (true) {
      int key = eventKey();
      if ((seen & 1 << key) != 0) {
        throw Outside.INSTANCE;
      }
      seen |= 1 << key;
      need(':');
      switch (key) {
        case K_SEQUENCE -> {
          long value = integer();
          if (value <= 0) {
            throw Outside.INSTANCE;
          }
          sequence = value;
        }
        case K_PAYLOAD -> payload = value(0);
        case K_ID -> id = text(string());
        case K_TYPE -> type = lastType = same(string(), lastType);
        case K_COMMAND_ID -> commandId = lastCommandId = same(string(), lastCommandId);
        case K_OPERATION_ID -> operationId = text(string());
        default -> occurredAt = instant(string());
      }
      byte c = next();
      if (c == '}') {
        break;
      }
      if (c != ',') {
        throw Outside.INSTANCE;
      }
    }
    if ((seen & REQUIRED) != REQUIRED) {
      throw Outside.INSTANCE;
    }
    return new Scanned(id, sequence, type, occurredAt, payload, commandId, operationId);
  }

  /** Reads an event key (with its quotes) and answers its index in {@link #KEYS}. */
  private int eventKey() {
    int from = p + 1;
    string();
    int length = p - 1 - from;
    // The keys' lengths are all different.
    int k = switch (length) {
      case 9 -> K_COMMAND_ID;
      case 2 -> K_ID;
      case 10 -> K_OCCURRED_AT;
      case 11 -> K_OPERATION_ID;
      case 7 -> K_PAYLOAD;
      case 8 -> K_SEQUENCE;
      case 4 -> K_TYPE;
      default -> throw Outside.INSTANCE;
    };
    byte[] key = KEYS[k];
    for (int i = 0; i < length; i++) {
      if (b[from + i] != key[i]) {
        throw Outside.INSTANCE;
      }
    }
    return k;
  }

  /** A value at payload depth {@code depth}: its tree, or {@link NullNode} when not built. */
  private JsonNode value(int depth) {
    byte c = peek();
    switch (c) {
      case '{' -> {
        return object(depth + 1);
      }
      case '[' -> {
        return array(depth + 1);
      }
      case '"' -> {
        int from = p + 1;
        string();
        return trees ? NODES.textNode(new String(b, from, p - 1 - from,
            StandardCharsets.ISO_8859_1)) : NullNode.getInstance();
      }
      case 't' -> {
        literal("true");
        return trees ? NODES.booleanNode(true) : NullNode.getInstance();
      }
      case 'f' -> {
        literal("false");
        return trees ? NODES.booleanNode(false) : NullNode.getInstance();
      }
      case 'n' -> {
        literal("null");
        return NullNode.getInstance();
      }
      default -> {
        long value = integer();
        if (!trees) {
          return NullNode.getInstance();
        }
        return value == (int) value ? NODES.numberNode((int) value) : NODES.numberNode(value);
      }
    }
  }

  private JsonNode object(int depth) {
    if (depth > MAX_DEPTH) {
      throw Outside.INSTANCE;
    }
    p++;
    ObjectNode node = trees ? NODES.objectNode() : null;
    if (peek() == '}') {
      p++;
      return trees ? node : NullNode.getInstance();
    }
    if (keys.length <= depth) {
      keys = java.util.Arrays.copyOf(keys, depth + 1);
    }
    int[] seen = keys[depth];
    if (seen == null) {
      seen = keys[depth] = new int[2 * MAX_KEYS];
    }
    int count = 0;
    while (true) {
      int from = p + 1;
      string();
      int length = p - 1 - from;
      if (length > MAX_KEY) {
        throw Outside.INSTANCE;
      }
      for (int i = 0; i < count; i++) {
        if (seen[2 * i + 1] == length && java.util.Arrays.equals(b, seen[2 * i],
            seen[2 * i] + length, b, from, from + length)) {
          throw Outside.INSTANCE; // a repeated key: the parser's reader refuses it
        }
      }
      if (count == MAX_KEYS) {
        throw Outside.INSTANCE;
      }
      seen[2 * count] = from;
      seen[2 * count + 1] = length;
      count++;
      need(':');
      JsonNode value = value(depth);
      if (trees) {
        node.set(name(from, length), value);
      }
      byte c = next();
      if (c == '}') {
        return trees ? node : NullNode.getInstance();
      }
      if (c != ',') {
        throw Outside.INSTANCE;
      }
    }
  }

  private JsonNode array(int depth) {
    if (depth > MAX_DEPTH) {
      throw Outside.INSTANCE;
    }
    p++;
    ArrayNode node = trees ? NODES.arrayNode() : null;
    if (peek() == ']') {
      p++;
      return trees ? node : NullNode.getInstance();
    }
    while (true) {
      JsonNode value = value(depth);
      if (trees) {
        node.add(value);
      }
      byte c = next();
      if (c == ']') {
        return trees ? node : NullNode.getInstance();
      }
      if (c != ',') {
        throw Outside.INSTANCE;
      }
    }
  }

  /**
   * Reads past a string of printable ASCII without escapes (the opening quote at {@code p}),
   * leaving {@code p} after its closing quote; answers the index of its first character.
   */
  private int string() {
    if (p >= limit || b[p] != '"') {
      throw Outside.INSTANCE;
    }
    int from = ++p;
    int end = Math.min(limit, from + MAX_STRING);
    // Eight bytes at a time while none of them ends the string or leaves the subset.
    while (p + Long.BYTES <= end && plain((long) WORDS.get(b, p))) {
      p += Long.BYTES;
    }
    while (p < end) {
      byte c = b[p];
      if (c == '"') {
        p++;
        return from;
      }
      if (c < 0x20 || c > 0x7e || c == '\\') {
        throw Outside.INSTANCE;
      }
      p++;
    }
    throw Outside.INSTANCE;
  }

  /**
   * Whether all eight bytes of {@code word} are printable ASCII other than a quote and a
   * backslash (exact for the word as a whole).
   */
  private static boolean plain(long word) {
    long below = (word - ONES * 0x20) & ~word; // a byte below 0x20 (or 0x80 and up, below)
    return ((below | word) & HIGH) == 0 && !hasZeroByte(word ^ (ONES * '"'))
        && !hasZeroByte(word ^ (ONES * '\\')) && !hasZeroByte(word ^ (ONES * 0x7f));
  }

  private static boolean hasZeroByte(long word) {
    return ((word - ONES) & ~word & HIGH) != 0;
  }

  /**
   * A payload key as a string: the same string as the last key of that length and first byte
   * if it has the same bytes (payloads of one record mostly repeat their keys).
   */
  private String name(int from, int length) {
    int slot = (length * 31 + (length == 0 ? 0 : b[from])) & (NAMES - 1);
    String last = names[slot];
    if (last != null && last.length() == length) {
      boolean equal = true;
      for (int i = 0; i < length && equal; i++) {
        equal = b[from + i] == last.charAt(i);
      }
      if (equal) {
        return last;
      }
    }
    String name = new String(b, from, length, StandardCharsets.ISO_8859_1);
    names[slot] = name;
    return name;
  }

  /** The string that {@link #string} just read, from {@code from}. */
  private String text(int from) {
    return new String(b, from, p - 1 - from, StandardCharsets.ISO_8859_1);
  }

  /** The string just read, as {@code previous} if it has the same characters. */
  private String same(int from, String previous) {
    int length = p - 1 - from;
    if (previous != null && previous.length() == length) {
      boolean equal = true;
      for (int i = 0; i < length && equal; i++) {
        equal = b[from + i] == previous.charAt(i);
      }
      if (equal) {
        return previous;
      }
    }
    return text(from);
  }

  /** The string just read as an instant: the one before it if the text is the same. */
  private Instant instant(int from) {
    int length = p - 1 - from;
    if (length == lastOccurredLength && java.util.Arrays.equals(b, from, from + length, b,
        lastOccurredFrom, lastOccurredFrom + length)) {
      if (lastOccurred == null) {
        lastOccurred = JsonFields.instant(text(from), "occurredAt");
      }
      return lastOccurred;
    }
    Instant parsed = JsonFields.instant(text(from), "occurredAt");
    lastOccurredFrom = from;
    lastOccurredLength = length;
    lastOccurred = parsed;
    return parsed;
  }

  /** An integer of at most 18 digits, without a leading zero, fraction or exponent. */
  private long integer() {
    boolean negative = p < limit && b[p] == '-';
    if (negative) {
      p++;
    }
    int from = p;
    long value = 0;
    while (p < limit && b[p] >= '0' && b[p] <= '9') {
      value = value * 10 + (b[p] - '0');
      p++;
    }
    int digits = p - from;
    if (digits == 0 || digits > 18 || (digits > 1 && b[from] == '0')
        || (negative && value == 0)) {
      throw Outside.INSTANCE;
    }
    if (p < limit && (b[p] == '.' || b[p] == 'e' || b[p] == 'E')) {
      throw Outside.INSTANCE;
    }
    return negative ? -value : value;
  }

  private void literal(String word) {
    for (int i = 0; i < word.length(); i++) {
      if (p >= limit || b[p] != word.charAt(i)) {
        throw Outside.INSTANCE;
      }
      p++;
    }
  }

  private boolean startsWith(byte[] bytes) {
    return limit - p >= bytes.length
        && java.util.Arrays.equals(b, p, p + bytes.length, bytes, 0, bytes.length);
  }

  private void expect(byte[] bytes) {
    if (!startsWith(bytes)) {
      throw Outside.INSTANCE;
    }
    p += bytes.length;
  }

  private byte peek() {
    if (p >= limit) {
      throw Outside.INSTANCE;
    }
    return b[p];
  }

  private byte next() {
    if (p >= limit) {
      throw Outside.INSTANCE;
    }
    return b[p++];
  }

  private void need(char c) {
    if (next() != c) {
      throw Outside.INSTANCE;
    }
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
