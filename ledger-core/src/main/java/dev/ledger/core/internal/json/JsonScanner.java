package dev.ledger.core.internal.json;

import java.nio.charset.StandardCharsets;

/**
 * A validating scanner over the bytes of one JSON text, for a reader that must find where
 * values lie in a large document (a checkpoint's state, its documents) without building them.
 *
 * <p>What it skips it checks as strictly as {@link LedgerJson#parse} would for structure:
 * strings terminated, with no raw character below U+0020, only the escapes JSON defines and
 * well-formed UTF-8; numbers as the JSON grammar writes them (no leading zero, no lone sign or
 * point); the literals {@code true false null}; colons and commas where they belong; brackets
 * balanced; containers at most {@link LedgerJson#MAX_NESTING_DEPTH} deep counted from the
 * text's root. It does not look for duplicate member names in what it skips (the caller's
 * full parse of such a value does) and accepts any order of members.
 *
 * <p>A failure is a {@link MalformedJsonException} carrying the offset in the array.
 * Not thread-safe: one scanner per text being read.
 */
public final class JsonScanner {
  private final byte[] b;
  private final int end;
  private int pos;
  /** Whether whitespace was stepped over since {@link #clearMarks}. */
  private boolean spaced;
  /** Whether a skipped object had a null member since {@link #clearMarks}. */
  private boolean nullMember;
  /**
   * Whether a number or string was stepped over, since {@link #clearMarks}, in another form
   * than the one {@link CanonicalWriter} writes for the value a parse reads from it.
   */
  private boolean uncanonical;

  /**
   * A scanner over {@code length} bytes of {@code bytes} from {@code offset}.
   *
   * @param bytes the text (not copied: it must not change while scanned)
   * @param offset where the text starts
   * @param length how many bytes it has
   */
  public JsonScanner(byte[] bytes, int offset, int length) {
    java.util.Objects.checkFromIndexSize(offset, length, bytes.length);
    this.b = bytes;
    this.pos = offset;
    this.end = offset + length;
  }

  /** Where the scanner stands: the offset of the next byte to read. */
  public int position() {
    return pos;
  }

  /**
   * Moves the scanner back to an offset it stood at before (to read a value again).
   *
   * @param offset an offset returned by {@link #position}
   */
  public void reset(int offset) {
    java.util.Objects.checkIndex(offset, end + 1);
    pos = offset;
  }

  /**
   * Whether everything stepped over since the last {@link #clearMarks} is written as
   * {@link CanonicalWriter} writes the tree a parse of it gives, so that its length is the size
   * of that tree as compact JSON: no whitespace outside strings, no object member whose value
   * is {@code null} (a merge leaves those out), numbers as integers other than {@code -0}
   * (a fraction or exponent may be written in another form), and strings with only the
   * escapes the writer makes (no {@code \/}, a {@code \}{@code u} escape only for a control
   * character or a surrogate, upper-case hex) and no four-byte UTF-8 (written as two escapes).
   * Member names {@link #name} reads count; member names and values of the outermost object
   * being read count only as far as the caller checks them.
   */
  public boolean canonical() {
    return !spaced && !nullMember && !uncanonical;
  }

  /** Starts {@link #canonical} afresh. */
  public void clearMarks() {
    spaced = false;
    nullMember = false;
    uncanonical = false;
  }

  /**
   * Marks a member whose value is {@code null}, for {@link #canonical}: for a caller that
   * reads members itself.
   */
  public void markNullMember() {
    nullMember = true;
  }

  /**
   * Steps over whitespace and returns the next byte without consuming it.
   *
   * @throws MalformedJsonException at the end of the text
   */
  public byte peek() {
    skipSpace();
    if (pos >= end) {
      throw error("unexpected end of JSON");
    }
    return b[pos];
  }

  /** Whether only whitespace is left. */
  public boolean atEnd() {
    skipSpace();
    return pos >= end;
  }

  /**
   * Opens an object: consumes its {@code {}}, and its {@code }} if it is empty.
   *
   * @return true if a member follows (read it with {@link #name})
   * @throws MalformedJsonException if no object starts here
   */
  public boolean beginObject() {
    if (peek() != '{') {
      throw error("expected an object");
    }
    pos++;
    if (peek() == '}') {
      pos++;
      return false;
    }
    return true;
  }

  /**
   * Reads a member's name and its colon; the value follows.
   *
   * @throws MalformedJsonException if no name and colon are there
   */
  public String name() {
    if (peek() != '"') {
      throw error("expected a member name");
    }
    String name = string();
    if (!pairedSurrogates(name)) {
      // What a parser refuses in a member name (it keeps them in string values).
      throw error("broken surrogate pair in member name");
    }
    if (peek() != ':') {
      throw error("expected ':'");
    }
    pos++;
    return name;
  }

  /**
   * Reads a member's name and its colon as {@link #name} does, with the same checks and
   * failures, and tells which of {@code candidates} it is, without building the name when it
   * holds no escape (its bytes are compared; unescaped well-formed UTF-8 holds no surrogate, so
   * there is nothing more to check).
   *
   * @param candidates names, each as its UTF-8 bytes
   * @return the index of the candidate equal to the name, or -1 if none is
   * @throws MalformedJsonException if no name and colon are there
   */
  public int name(byte[][] candidates) {
    if (peek() != '"') {
      throw error("expected a member name");
    }
    int start = pos + 1;
    int found = -1;
    if (skipString()) {
      String name = decode(start, pos - 1);
      if (!pairedSurrogates(name)) {
        throw error("broken surrogate pair in member name");
      }
      for (int i = 0; i < candidates.length; i++) {
        if (name.equals(new String(candidates[i], StandardCharsets.UTF_8))) {
          found = i;
        }
      }
    } else {
      int to = pos - 1;
      for (int i = 0; i < candidates.length; i++) {
        if (java.util.Arrays.equals(b, start, to, candidates[i], 0, candidates[i].length)) {
          found = i;
        }
      }
    }
    if (peek() != ':') {
      throw error("expected ':'");
    }
    pos++;
    return found;
  }

  /**
   * After a member's value: consumes a comma (true: another member follows) or the closing
   * brace (false).
   *
   * @throws MalformedJsonException if neither is there
   */
  public boolean nextMember() {
    byte c = peek();
    pos++;
    if (c == ',') {
      return true;
    }
    if (c == '}') {
      return false;
    }
    pos--;
    throw error("expected ',' or '}'");
  }

  private static boolean pairedSurrogates(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
          return false;
        }
        i++;
      } else if (Character.isLowSurrogate(c)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Reads a string value, escapes decoded.
   *
   * @throws MalformedJsonException if no well-formed string is there
   */
  public String string() {
    if (peek() != '"') {
      throw error("expected a string");
    }
    int start = pos + 1;
    boolean escaped = skipString();
    if (!escaped) {
      return new String(b, start, pos - 1 - start, StandardCharsets.UTF_8);
    }
    return decode(start, pos - 1);
  }

  /**
   * Reads an integer that fits a {@code long} (no fraction, no exponent).
   *
   * @return the integer, or null if the value here is not such a number (the scanner then
   *     stands where it stood)
   */
  public Long integer() {
    int start = pos;
    if (peek() != '-' && (b[pos] < '0' || b[pos] > '9')) {
      return null;
    }
    int from = pos;
    skipNumber();
    int length = pos - from;
    boolean plain = length <= 18;
    for (int i = from; plain && i < pos; i++) {
      plain = b[i] != '.' && b[i] != 'e' && b[i] != 'E';
    }
    if (!plain) {
      pos = start;
      return null;
    }
    long value = 0;
    boolean negative = b[from] == '-';
    for (int i = negative ? from + 1 : from; i < pos; i++) {
      value = value * 10 + (b[i] - '0');
    }
    return negative ? -value : value;
  }

  /**
   * Steps over one value, checking it (see the class comment).
   *
   * @param depth the containers the value is inside, counted from the text's root
   * @throws MalformedJsonException if the value is not well-formed JSON
   */
  public void skipValue(int depth) {
    byte c = peek();
    switch (c) {
      case '{' -> {
        nest(depth);
        if (beginObject()) {
          do {
            skipName();
            if (peek() == 'n') {
              nullMember = true;
            }
            skipValue(depth + 1);
          } while (nextMember());
        }
      }
      case '[' -> {
        nest(depth);
        pos++;
        if (peek() == ']') {
          pos++;
          return;
        }
        while (true) {
          skipValue(depth + 1);
          byte next = peek();
          pos++;
          if (next == ']') {
            return;
          }
          if (next != ',') {
            pos--;
            throw error("expected ',' or ']'");
          }
        }
      }
      case '"' -> skipString();
      case 't' -> literal("true");
      case 'f' -> literal("false");
      case 'n' -> literal("null");
      default -> {
        if (c == '-' || (c >= '0' && c <= '9')) {
          skipNumber();
        } else {
          throw error("unexpected character");
        }
      }
    }
  }

  /** A member name and its colon, checked as JSON but not decoded (see {@link #name}). */
  private void skipName() {
    if (peek() != '"') {
      throw error("expected a member name");
    }
    skipString();
    if (peek() != ':') {
      throw error("expected ':'");
    }
    pos++;
  }

  private void nest(int depth) {
    if (depth + 1 > LedgerJson.MAX_NESTING_DEPTH) {
      throw error("nesting deeper than " + LedgerJson.MAX_NESTING_DEPTH);
    }
  }

  private void skipSpace() {
    int p = pos;
    while (p < end) {
      byte c = b[p];
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
        break;
      }
      p++;
    }
    if (p != pos) {
      spaced = true;
      pos = p;
    }
  }

  private void literal(String word) {
    int n = word.length();
    if (end - pos < n) {
      throw error("bad literal");
    }
    for (int i = 0; i < n; i++) {
      if (b[pos + i] != word.charAt(i)) {
        throw error("bad literal");
      }
    }
    pos += n;
    if (pos < end && isWordByte(b[pos])) {
      throw error("bad literal");
    }
  }

  private static boolean isWordByte(byte c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || c == '_' || c == '.' || c == '-' || c == '+';
  }

  private void skipNumber() {
    int p = pos;
    if (b[p] == '-') {
      p++;
    }
    if (p >= end) {
      throw errorAt(p, "bad number");
    }
    if (b[p] == '0') {
      p++;
    } else if (b[p] >= '1' && b[p] <= '9') {
      p = digits(p);
    } else {
      throw errorAt(p, "bad number");
    }
    if (b[pos] == '-' && p == pos + 2 && b[pos + 1] == '0') {
      uncanonical = true;
    }
    if (p < end && (b[p] == '.' || b[p] == 'e' || b[p] == 'E')) {
      uncanonical = true;
    }
    if (p < end && b[p] == '.') {
      int q = digits(p + 1);
      if (q == p + 1) {
        throw errorAt(p, "bad number");
      }
      p = q;
    }
    if (p < end && (b[p] == 'e' || b[p] == 'E')) {
      p++;
      if (p < end && (b[p] == '+' || b[p] == '-')) {
        p++;
      }
      int q = digits(p);
      if (q == p) {
        throw errorAt(p, "bad number");
      }
      p = q;
    }
    if (p < end && isWordByte(b[p])) {
      throw errorAt(p, "bad number");
    }
    pos = p;
  }

  private int digits(int p) {
    while (p < end && b[p] >= '0' && b[p] <= '9') {
      p++;
    }
    return p;
  }

  /** Steps over the string at {@code pos}; returns whether it holds an escape. */
  private boolean skipString() {
    int p = pos + 1;
    boolean escaped = false;
    while (true) {
      // Eight plain bytes at a time: none a quote, a backslash, below 0x20 or above 0x7F.
      while (p + 8 <= end && plain((long) LONGS.get(b, p))) {
        p += 8;
      }
      if (p >= end) {
        throw errorAt(p, "unterminated string");
      }
      int c = b[p];
      if (c == '"') {
        pos = p + 1;
        return escaped;
      }
      if (c >= 0x20 && c != '\\') {
        p++;
      } else if (c == '\\') {
        escaped = true;
        if (p + 1 >= end) {
          throw errorAt(p, "unterminated string");
        }
        switch (b[p + 1]) {
          case '"', '\\', 'b', 'f', 'n', 'r', 't' -> p += 2;
          case '/' -> {
            uncanonical = true;
            p += 2;
          }
          case 'u' -> {
            if (p + 6 > end) {
              throw errorAt(p, "bad escape");
            }
            int code = 0;
            for (int i = p + 2; i < p + 6; i++) {
              int digit = Character.digit(b[i], 16);
              if (digit < 0) {
                throw errorAt(p, "bad escape");
              }
              if (b[i] >= 'a' && b[i] <= 'f') {
                uncanonical = true;
              }
              code = code * 16 + digit;
            }
            if (!(code < 0x20 && code != '\b' && code != '\t' && code != '\n' && code != '\f'
                && code != '\r') && !(code >= 0xD800 && code <= 0xDFFF)) {
              uncanonical = true;
            }
            p += 6;
          }
          default -> throw errorAt(p, "bad escape");
        }
      } else if (c >= 0) {
        throw errorAt(p, "control character in string");
      } else {
        p = utf8(p);
      }
    }
  }

  private static final java.lang.invoke.VarHandle LONGS =
      java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class,
          java.nio.ByteOrder.LITTLE_ENDIAN);
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGHS = 0x8080808080808080L;

  /** Whether none of the eight bytes of {@code v} needs a look in a string (see skipString). */
  private static boolean plain(long v) {
    long quote = v ^ (ONES * '"');
    long backslash = v ^ (ONES * '\\');
    // A byte is zero (has a match) where (x - 1) borrows into its high bit and x had none;
    // below 0x20 likewise with 0x20; any byte at or above 0x80 has its high bit set.
    long special = ((quote - ONES) & ~quote) | ((backslash - ONES) & ~backslash)
        | ((v - ONES * 0x20) & ~v) | v;
    return (special & HIGHS) == 0;
  }

  /** Steps over one multi-byte UTF-8 character at {@code p}, checking its form. */
  private int utf8(int p) {
    int lead = b[p] & 0xFF;
    int more;
    int min;
    if (lead >= 0xC2 && lead <= 0xDF) {
      more = 1;
      min = 0x80;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      more = 2;
      min = 0x800;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      uncanonical = true;
      more = 3;
      min = 0x10000;
    } else {
      throw errorAt(p, "invalid UTF-8");
    }
    if (p + more >= end) {
      throw errorAt(p, "invalid UTF-8");
    }
    int code = lead & (0x3F >> more);
    for (int i = 1; i <= more; i++) {
      int cont = b[p + i] & 0xFF;
      if ((cont & 0xC0) != 0x80) {
        throw errorAt(p, "invalid UTF-8");
      }
      code = (code << 6) | (cont & 0x3F);
    }
    if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
      throw errorAt(p, "invalid UTF-8");
    }
    return p + more + 1;
  }

  /** Decodes the checked string content between {@code from} and {@code to}. */
  private String decode(int from, int to) {
    StringBuilder out = new StringBuilder(to - from);
    int run = from;
    int p = from;
    while (p < to) {
      if (b[p] != '\\') {
        p++;
        continue;
      }
      out.append(new String(b, run, p - run, StandardCharsets.UTF_8));
      byte e = b[p + 1];
      switch (e) {
        case 'b' -> out.append('\b');
        case 'f' -> out.append('\f');
        case 'n' -> out.append('\n');
        case 'r' -> out.append('\r');
        case 't' -> out.append('\t');
        case 'u' -> out.append((char) Integer.parseInt(
            new String(b, p + 2, 4, StandardCharsets.US_ASCII), 16));
        default -> out.append((char) e);
      }
      p += e == 'u' ? 6 : 2;
      run = p;
    }
    out.append(new String(b, run, to - run, StandardCharsets.UTF_8));
    return out.toString();
  }

  /** A failure at the scanner's position. */
  public MalformedJsonException error(String detail) {
    return errorAt(pos, detail);
  }

  private MalformedJsonException errorAt(int offset, String detail) {
    return new MalformedJsonException(offset, detail);
  }

  /** Bytes that are not the well-formed JSON the scanner expected. */
  public static final class MalformedJsonException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final int offset;

    MalformedJsonException(int offset, String detail) {
      super(detail + " at byte " + offset);
      this.offset = offset;
    }

    /** The offset in the scanned array where the damage was found. */
    public int offset() {
      return offset;
    }
  }
}
