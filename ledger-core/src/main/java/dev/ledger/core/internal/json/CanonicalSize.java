package dev.ledger.core.internal.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The length of a tree's canonical JSON ({@link LedgerJson#canonical}), counted by walking the
 * tree, without a generator and without writing a byte: what the commit path's size checks
 * need (the state limit, patch against whole state), at the cost of reading each string once.
 *
 * <p>The count follows the generator's output rules: compact (no whitespace), a string or
 * field name is its UTF-8 bytes between quotes, with {@code "} and {@code \} and the control
 * characters below U+0020 escaped ({@code \b \t \n \f \r} in two bytes, the others as
 * {@code \}{@code u00XX} in six); {@code int} and {@code long} in decimal; a finite double as
 * {@link Double#toString}; every surrogate character, paired or not, as a six-byte
 * escape such as {@code \}{@code ud83d} (the generator does not combine pairs). Other node kinds (big
 * integers, floats, decimals, binary, POJO nodes) are not counted: {@link #of} returns
 * {@link #UNCOUNTED} and the caller counts the generator's output instead.
 */
final class CanonicalSize {
  /** What {@link #of} returns for a tree it does not count. */
  static final long UNCOUNTED = -1;

  /** Bytes of each ASCII character inside a JSON string. */
  private static final byte[] ASCII = new byte[128];

  static {
    for (int c = 0; c < 128; c++) {
      ASCII[c] = 1;
    }
    for (int c = 0; c < 0x20; c++) {
      ASCII[c] = 6;
    }
    for (char c : new char[] {'\b', '\t', '\n', '\f', '\r', '"', '\\'}) {
      ASCII[c] = 2;
    }
  }

  private CanonicalSize() {}

  /**
   * The number of bytes of {@code node}'s canonical JSON, or {@link #UNCOUNTED}. Recursive:
   * the caller's tree is within the library's nesting bound (as for {@link CanonicalJson}).
   */
  static long of(JsonNode node) {
    return of(node, null);
  }

  /**
   * {@link #of(JsonNode)}, taking the sizes of long strings from {@code strings} (and telling
   * it those it had to count), when given.
   */
  static long of(JsonNode node, StringSizes.Sizing strings) {
    switch (node.getNodeType()) {
      case OBJECT: {
        long size = 2 + Math.max(0, node.size() - 1); // braces, commas
        for (Map.Entry<String, JsonNode> field : node.properties()) {
          long name = string(field.getKey());
          long value = of(field.getValue(), strings);
          if (name < 0 || value < 0) {
            return UNCOUNTED;
          }
          size += name + 1 + value; // name, colon, value
        }
        return size;
      }
      case ARRAY: {
        long size = 2 + Math.max(0, node.size() - 1);
        for (JsonNode item : node) {
          long value = of(item, strings);
          if (value < 0) {
            return UNCOUNTED;
          }
          size += value;
        }
        return size;
      }
      case STRING:
        return strings == null ? string(node.textValue()) : strings.size(node.textValue());
      case BOOLEAN:
        return node.booleanValue() ? 4 : 5;
      case NULL:
        return 4;
      case NUMBER:
        return number(node);
      default:
        return UNCOUNTED;
    }
  }

  private static long number(JsonNode node) {
    if (node instanceof IntNode) {
      return digits(node.intValue());
    }
    if (node instanceof LongNode) {
      return digits(node.longValue());
    }
    if (node.isDouble() && Double.isFinite(node.doubleValue())) {
      return Double.toString(node.doubleValue()).length();
    }
    return UNCOUNTED;
  }

  private static int digits(long value) {
    if (value == Long.MIN_VALUE) {
      return 20;
    }
    int sign = value < 0 ? 1 : 0;
    long rest = Math.abs(value);
    int count = 1;
    while (rest >= 10) {
      rest /= 10;
      count++;
    }
    return sign + count;
  }

  /**
   * Strings at least this long are first checked for plain ASCII eight bytes at a time
   * ({@link #plain}); shorter ones are counted character by character.
   */
  static final int WORDWISE = 32;

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGH = 0x8080808080808080L;

  /**
   * Whether {@code bytes[from, to)} are all written as they are inside a JSON string: ASCII
   * from U+0020 on, except the quote and the backslash. Eight bytes at a time, without a
   * branch per byte: a byte at or above 0x80 has its high bit set; one below 0x20, or one
   * equal to the quote or the backslash (zero once xor-ed with it), borrows into its high bit
   * when 0x20 (or 0x01) is subtracted from every byte.
   */
  static boolean plainAscii(byte[] bytes, int from, int to) {
    long any = 0;
    int i = from;
    for (; i + 8 <= to; i += 8) {
      long x = (long) LONGS.get(bytes, i);
      long quote = x ^ 0x2222222222222222L;
      long backslash = x ^ 0x5c5c5c5c5c5c5c5cL;
      any |= x | ((x - 0x2020202020202020L) & ~x) | ((quote - ONES) & ~quote)
          | ((backslash - ONES) & ~backslash);
    }
    if ((any & HIGH) != 0) {
      return false;
    }
    for (; i < to; i++) {
      int c = bytes[i]; // negative at or above 0x80
      if (c < 0x20 || c == '"' || c == '\\') {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether {@code latin1}, the low bytes of {@code text}'s characters at
   * {@code latin1[from, from + text.length())}, are {@code text}'s UTF-8 bytes as written in a
   * JSON string, unescaped: all {@link #plainAscii}, and no character of {@code text} above
   * U+00FF (whose low byte could look plain). The second check compares {@code text} with the
   * string of those bytes, which the JDK does for a Latin-1 string a word at a time and for
   * any other string by its encoding at once.
   */
  static boolean plain(String text, byte[] latin1, int from) {
    int length = text.length();
    return plainAscii(latin1, from, from + length)
        && text.equals(new String(latin1, from, length, StandardCharsets.ISO_8859_1));
  }

  /** A quoted, escaped string's length in UTF-8. */
  static long string(String text) {
    int length = text.length();
    if (length >= WORDWISE) {
      // One byte per character, except that a surrogate pair becomes a single '?'.
      byte[] latin1 = text.getBytes(StandardCharsets.ISO_8859_1);
      if (latin1.length == length && plain(text, latin1, 0)) {
        return length + 2L;
      }
    }
    long size = 2;
    for (int i = 0; i < length; i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        size += ASCII[c];
      } else if (c < 0x800) {
        size += 2;
      } else {
        // The generator writes each surrogate, paired or not, as its own six-byte escape.
        size += Character.isSurrogate(c) ? 6 : 3;
      }
    }
    return size;
  }
}
