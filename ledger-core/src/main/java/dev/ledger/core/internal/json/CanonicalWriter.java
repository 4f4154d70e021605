package dev.ledger.core.internal.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Arrays;
import java.util.Map;

/**
 * Canonical JSON written straight into a growable byte array: the bytes Jackson's generator
 * writes for the library's mapper ({@link LedgerJson#canonical}), without a generator, its
 * buffers and its per-value context, so that a journal line is built in one array that is
 * checksummed and written as it is.
 *
 * <p>The output rules are the generator's: compact; a string or field name is its UTF-8 bytes
 * between quotes, with {@code "} and {@code \} escaped by a backslash, {@code \b \t \n \f \r}
 * in two bytes, the other characters below U+0020 as {@code \}{@code u00XX} with upper-case
 * hex, and every surrogate character, paired or not, as its own six-byte escape (the generator
 * does not combine pairs); {@code int}, {@code long} and big integers in decimal; a finite
 * double as {@link Double#toString}. A tree holding another node kind (floats, big decimals,
 * binary, POJO nodes, non-finite doubles) is refused with {@link CanonicalJson.Unsupported}
 * ({@link #tree} returns false) and the caller falls back to Jackson's writer, which defines
 * the canonical form. Containers deeper than {@link LedgerJson#MAX_NESTING_DEPTH}, counted
 * from the document's root as the generator counts them, are refused as the generator refuses
 * them, since no reader could parse them back.
 *
 * <p>Not thread-safe: one writer per line being built.
 */
public final class CanonicalWriter {
  /** Per ASCII character: 0 if written as it is, else the character after the backslash. */
  private static final byte[] ESCAPES = new byte[128];
  private static final byte[] HEX = "0123456789ABCDEF".getBytes(
      java.nio.charset.StandardCharsets.US_ASCII);
  /** Marks a character written as {@code \}{@code u00XX}. */
  private static final byte UNICODE = 'u';

  static {
    for (int c = 0; c < 0x20; c++) {
      ESCAPES[c] = UNICODE;
    }
    ESCAPES['\b'] = 'b';
    ESCAPES['\t'] = 't';
    ESCAPES['\n'] = 'n';
    ESCAPES['\f'] = 'f';
    ESCAPES['\r'] = 'r';
    ESCAPES['"'] = '"';
    ESCAPES['\\'] = '\\';
  }

  private byte[] bytes;
  private int size;

  /**
   * A writer whose array starts with room for {@code capacity} bytes.
   *
   * @param capacity the initial capacity, at least 16
   */
  public CanonicalWriter(int capacity) {
    bytes = new byte[Math.max(16, capacity)];
  }

  /** The array written so far; valid up to {@link #size}, and only until the next write. */
  public byte[] array() {
    return bytes;
  }

  /** The number of bytes written. */
  public int size() {
    return size;
  }

  /** Empties this writer, keeping its array for the next document. */
  public void reset() {
    size = 0;
  }

  /** Appends {@code ascii}, bytes written as they are (names, punctuation). */
  public void raw(byte[] ascii) {
    ensure(ascii.length);
    System.arraycopy(ascii, 0, bytes, size, ascii.length);
    size += ascii.length;
  }

  /**
   * Appends {@code length} bytes of {@code source} from {@code offset} as they are: JSON the
   * caller knows to be canonical already (a value copied from canonical bytes).
   *
   * @throws IndexOutOfBoundsException if the range is not inside {@code source}
   */
  public void raw(byte[] source, int offset, int length) {
    java.util.Objects.checkFromIndexSize(offset, length, source.length);
    ensure(length);
    System.arraycopy(source, offset, bytes, size, length);
    size += length;
  }

  /** Appends one byte as it is. */
  public void raw(char ascii) {
    ensure(1);
    bytes[size++] = (byte) ascii;
  }

  /** Appends {@code value} in decimal. */
  public void number(long value) {
    if (value == Long.MIN_VALUE) {
      raw("-9223372036854775808".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      return;
    }
    ensure(20);
    if (value < 0) {
      bytes[size++] = '-';
      value = -value;
    }
    int digits = 1;
    for (long rest = value / 10; rest != 0; rest /= 10) {
      digits++;
    }
    int at = size + digits;
    do {
      bytes[--at] = (byte) ('0' + (int) (value % 10));
      value /= 10;
    } while (value != 0);
    size += digits;
  }

  /** Appends {@code text} as a quoted, escaped JSON string. */
  @SuppressWarnings("deprecation") // String.getBytes(int, int, byte[], int): see below
  public void string(String text) {
    int length = text.length();
    ensure(length + 2);
    byte[] out = bytes;
    int at = size;
    out[at++] = '"';
    if (length >= CanonicalSize.WORDWISE) {
      // The low byte of each character, copied at once for a Latin-1 string; they are the
      // string's bytes only if it is plain ASCII, which is checked a word at a time.
      text.getBytes(0, length, out, at);
      if (CanonicalSize.plain(text, out, at)) {
        size = at + length;
        bytes[size++] = '"';
        return;
      }
    }
    // Most strings are plain ASCII: copied in one tight loop, the rest escaped char by char.
    int i = 0;
    for (; i < length; i++) {
      char c = text.charAt(i);
      if (c >= 0x80 || ESCAPES[c] != 0) {
        break;
      }
      out[at + i] = (byte) c;
    }
    size = at + i;
    if (i < length) {
      escaped(text, i);
    }
    ensure(1);
    bytes[size++] = '"';
  }

  /** Writes {@code text} from {@code from} on, escaping and encoding as the class says. */
  private void escaped(String text, int from) {
    int length = text.length();
    for (int i = from; i < length; i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        byte escape = ESCAPES[c];
        if (escape == 0) {
          ensure(1);
          bytes[size++] = (byte) c;
        } else if (escape == UNICODE) {
          unicodeEscape(c);
        } else {
          ensure(2);
          bytes[size++] = '\\';
          bytes[size++] = escape;
        }
      } else if (c < 0x800) {
        ensure(2);
        bytes[size++] = (byte) (0xc0 | (c >> 6));
        bytes[size++] = (byte) (0x80 | (c & 0x3f));
      } else if (Character.isSurrogate(c)) {
        unicodeEscape(c);
      } else {
        ensure(3);
        bytes[size++] = (byte) (0xe0 | (c >> 12));
        bytes[size++] = (byte) (0x80 | ((c >> 6) & 0x3f));
        bytes[size++] = (byte) (0x80 | (c & 0x3f));
      }
    }
  }

  private void unicodeEscape(char c) {
    ensure(6);
    bytes[size++] = '\\';
    bytes[size++] = 'u';
    bytes[size++] = HEX[(c >> 12) & 0xf];
    bytes[size++] = HEX[(c >> 8) & 0xf];
    bytes[size++] = HEX[(c >> 4) & 0xf];
    bytes[size++] = HEX[c & 0xf];
  }

  /**
   * Appends the canonical form of {@code node}, which sits inside {@code enclosing} containers
   * of the document being written (0 for the document itself).
   *
   * @return false if the tree holds a node kind this writer does not handle: part of it may
   *     have been written, and the caller discards the output
   * @throws IllegalArgumentException if a container would be nested deeper than
   *     {@link LedgerJson#MAX_NESTING_DEPTH}
   */
  public boolean tree(JsonNode node, int enclosing) {
    try {
      write(node, enclosing);
      return true;
    } catch (CanonicalJson.Unsupported e) {
      return false;
    }
  }

  /**
   * Appends {@code node} indented as Jackson's default pretty printer writes it for the
   * library's mapper ({@link LedgerJson#pretty}, without its trailing newline): members in key
   * order, each on its own line after the line separator and two spaces per enclosing object,
   * {@code " : "} between name and value, {@code { }} for an empty object, an array on one
   * line as {@code [ a, b ]} (or {@code [ ]}, an object inside it still broken into lines),
   * strings and numbers as {@link #tree} writes them.
   *
   * @return false if the tree holds a node kind this writer does not handle, as {@link #tree}
   * @throws IllegalArgumentException as {@link #tree}
   */
  public boolean prettyTree(JsonNode node) {
    try {
      writePretty(node, 0, 0);
      return true;
    } catch (CanonicalJson.Unsupported e) {
      return false;
    }
  }

  /** The pretty printer's line separator: the system's, as Jackson's default indenter. */
  private static final byte[] LINE = com.fasterxml.jackson.core.util.DefaultIndenter.SYS_LF
      .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static final byte[] NAME_SEPARATOR = {' ', ':', ' '};

  /** {@code indent}: the objects enclosing this node (arrays are written inline). */
  private void writePretty(JsonNode node, int enclosing, int indent) {
    switch (node.getNodeType()) {
      case OBJECT -> {
        ObjectNode object = (ObjectNode) node;
        int depth = depth(enclosing);
        raw('{');
        if (object.isEmpty()) {
          raw(' ');
          raw('}');
          return;
        }
        boolean first = true;
        Iterable<String> names = CanonicalJson.namesSorted(object) ? object::fieldNames
            : Arrays.asList(CanonicalJson.sortedNames(object));
        for (String name : names) {
          if (!first) {
            raw(',');
          }
          first = false;
          newLine(indent + 1);
          string(name);
          raw(NAME_SEPARATOR);
          writePretty(object.get(name), depth, indent + 1);
        }
        newLine(indent);
        raw('}');
      }
      case ARRAY -> {
        int depth = depth(enclosing);
        raw('[');
        raw(' ');
        boolean first = true;
        for (JsonNode item : node) {
          if (!first) {
            raw(',');
            raw(' ');
          }
          first = false;
          writePretty(item, depth, indent);
        }
        if (!first) {
          raw(' ');
        }
        raw(']');
      }
      default -> write(node, enclosing);
    }
  }

  private void newLine(int indent) {
    raw(LINE);
    ensure(2 * indent);
    Arrays.fill(bytes, size, size + 2 * indent, (byte) ' ');
    size += 2 * indent;
  }

  private void write(JsonNode node, int enclosing) {
    switch (node.getNodeType()) {
      case OBJECT -> writeObject((ObjectNode) node, depth(enclosing));
      case ARRAY -> {
        int depth = depth(enclosing);
        raw('[');
        boolean first = true;
        for (JsonNode item : node) {
          if (!first) {
            raw(',');
          }
          first = false;
          write(item, depth);
        }
        raw(']');
      }
      case STRING -> string(node.textValue());
      case BOOLEAN -> raw(node.booleanValue() ? TRUE : FALSE);
      case NULL -> raw(NULL);
      case NUMBER -> writeNumber(node);
      default -> throw new CanonicalJson.Unsupported(node);
    }
  }

  private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
  private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
  private static final byte[] NULL = {'n', 'u', 'l', 'l'};

  /** The depth of a container inside {@code enclosing} others, checked as the generator does. */
  private static int depth(int enclosing) {
    int depth = enclosing + 1;
    if (depth > LedgerJson.MAX_NESTING_DEPTH) {
      throw new IllegalArgumentException("Document nesting depth (" + depth
          + ") exceeds the maximum allowed (" + LedgerJson.MAX_NESTING_DEPTH + ")");
    }
    return depth;
  }

  private void writeNumber(JsonNode node) {
    if (node instanceof IntNode || node instanceof LongNode) {
      number(node.longValue());
    } else if (node.isBigInteger()) {
      raw(node.bigIntegerValue().toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    } else if (node.isDouble() && Double.isFinite(node.doubleValue())) {
      raw(Double.toString(node.doubleValue()).getBytes(
          java.nio.charset.StandardCharsets.US_ASCII));
    } else {
      throw new CanonicalJson.Unsupported(node);
    }
  }

  private void writeObject(ObjectNode node, int depth) {
    raw('{');
    boolean sorted = CanonicalJson.namesSorted(node);
    boolean first = true;
    if (sorted) {
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        if (!first) {
          raw(',');
        }
        first = false;
        string(field.getKey());
        raw(':');
        write(field.getValue(), depth);
      }
    } else {
      for (String name : CanonicalJson.sortedNames(node)) {
        if (!first) {
          raw(',');
        }
        first = false;
        string(name);
        raw(':');
        write(node.get(name), depth);
      }
    }
    raw('}');
  }

  private void ensure(int more) {
    if (bytes.length - size < more) {
      long wanted = Math.max((long) bytes.length * 2, (long) size + more);
      if (wanted > Integer.MAX_VALUE - 16) {
        if ((long) size + more > Integer.MAX_VALUE - 16) {
          throw new IllegalArgumentException("JSON of more than 2 GiB");
        }
        wanted = Integer.MAX_VALUE - 16;
      }
      bytes = Arrays.copyOf(bytes, (int) wanted);
    }
  }
}
