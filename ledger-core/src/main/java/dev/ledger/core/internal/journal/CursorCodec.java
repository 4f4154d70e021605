package dev.ledger.core.internal.journal;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.common.io.BaseEncoding;
import dev.ledger.core.Cursor;
import dev.ledger.core.InvalidCursorException;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Set;

/**
 * Encodes and validates cursor tokens.
 *
 * <p>A token is url-safe base64 without padding of a compact JSON object:
 * <pre>
 * {"after":1234,"offset":56789,"root":"&lt;first 16 hex of sha256(root id)&gt;","segment":1001,"v":1}
 * </pre>
 * {@code after} is the sequence of the last event covered (reads are exclusive of it).
 * {@code segment}/{@code offset} are a position hint: where the commit record holding event
 * {@code after + 1} (or ending just before it) starts. Backends verify the hint against the
 * record found there before using it. Tokens longer than {@link #MAX_TOKEN_LENGTH}, not
 * base64, not exactly this object, of another root or of a newer version are refused with
 * {@link InvalidCursorException}.
 */
public final class CursorCodec {
  /** Token format version written and the newest read. */
  public static final int VERSION = 1;
  /** Longest token accepted. */
  public static final int MAX_TOKEN_LENGTH = 256;

  private static final BaseEncoding BASE64 = BaseEncoding.base64Url().omitPadding();
  /**
   * The same alphabet and no padding as {@link #BASE64}, for encoding only: the JDK's encoder
   * writes a token's bytes without Guava's per-character {@code Appendable} calls.
   */
  private static final java.util.Base64.Encoder ENCODER =
      java.util.Base64.getUrlEncoder().withoutPadding();
  private static final Set<String> KEYS = Set.of("after", "offset", "root", "segment", "v");

  private CursorCodec() {}

  /** A decoded cursor: the last sequence covered and the position hint. */
  public record Position(long after, long segment, long offset) {}

  /** The token for a position in {@code root}'s journal. */
  public static Cursor encode(String root, long after, long segment, long offset) {
    // The canonical JSON of the object above, written directly as ASCII bytes: every commit
    // returns a cursor, and a tree plus a generator (or a string built, then encoded) cost
    // more than the rest of the encoding.
    byte[] json = new byte[MAX_JSON_LENGTH];
    int n = put(json, 0, AFTER);
    n = putNumber(json, n, after);
    n = put(json, n, OFFSET);
    n = putNumber(json, n, offset);
    n = put(json, n, ROOT);
    n = put(json, n, rootDigest(root));
    n = put(json, n, SEGMENT);
    n = putNumber(json, n, segment);
    n = put(json, n, TAIL);
    byte[] token = ENCODER.encode(java.util.Arrays.copyOf(json, n));
    return Cursor.of(new String(token, StandardCharsets.ISO_8859_1));
  }

  private static final byte[] AFTER = ascii("{\"after\":");
  private static final byte[] OFFSET = ascii(",\"offset\":");
  private static final byte[] ROOT = ascii(",\"root\":\"");
  private static final byte[] SEGMENT = ascii("\",\"segment\":");
  private static final byte[] TAIL = ascii(",\"v\":" + VERSION + "}");
  /** The longest object: three numbers of at most 20 characters and a 16-character digest. */
  private static final int MAX_JSON_LENGTH = AFTER.length + OFFSET.length + ROOT.length
      + SEGMENT.length + TAIL.length + 3 * 20 + 16;

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  private static int put(byte[] to, int at, byte[] bytes) {
    System.arraycopy(bytes, 0, to, at, bytes.length);
    return at + bytes.length;
  }

  private static int put(byte[] to, int at, String ascii) {
    int length = ascii.length();
    for (int i = 0; i < length; i++) {
      to[at + i] = (byte) ascii.charAt(i);
    }
    return at + length;
  }

  /** Writes {@code value} in decimal, as {@link Long#toString(long)} does. */
  private static int putNumber(byte[] to, int at, long value) {
    if (value < 0) {
      if (value == Long.MIN_VALUE) {
        return put(to, at, Long.toString(value));
      }
      to[at++] = '-';
      value = -value;
    }
    int end = at + digits(value);
    int i = end;
    do {
      to[--i] = (byte) ('0' + (int) (value % 10));
      value /= 10;
    } while (value != 0);
    return end;
  }

  private static int digits(long value) {
    int d = 1;
    for (long p = 10; d < 19 && value >= p; p *= 10) {
      d++;
    }
    return d;
  }

  /**
   * Decodes a non-START cursor issued for {@code root}.
   *
   * @throws InvalidCursorException if it is malformed, foreign or from a newer version
   */
  public static Position decode(String root, Cursor cursor) {
    String token = cursor.token();
    if (token.length() > MAX_TOKEN_LENGTH) {
      throw invalid(root, "token has " + token.length() + " characters; at most "
          + MAX_TOKEN_LENGTH + " are valid");
    }
    byte[] raw;
    try {
      raw = BASE64.decode(token);
    } catch (IllegalArgumentException e) {
      throw invalid(root, "token is not url-safe base64");
    }
    JsonNode node;
    try {
      node = LedgerJson.parse(raw);
    } catch (IOException e) {
      throw invalid(root, "token does not hold a cursor");
    }
    if (!node.isObject()) {
      throw invalid(root, "token does not hold a cursor object");
    }
    long version = field(root, node, "v");
    if (version > VERSION) {
      throw invalid(root, "cursor version " + version + " is newer than the supported "
          + VERSION);
    }
    if (version != VERSION) {
      throw invalid(root, "unknown cursor version " + version);
    }
    Iterator<String> names = node.fieldNames();
    while (names.hasNext()) {
      String name = names.next();
      if (!KEYS.contains(name)) {
        throw invalid(root, "unexpected cursor field '" + name + "'");
      }
    }
    JsonNode digest = node.get("root");
    if (digest == null || !digest.isTextual()) {
      throw invalid(root, "cursor names no ledger");
    }
    if (!digest.textValue().equals(rootDigest(root))) {
      throw invalid(root, "cursor was issued for another ledger");
    }
    long after = field(root, node, "after");
    long segment = field(root, node, "segment");
    long offset = field(root, node, "offset");
    if (after < 0 || segment < 0 || offset < 0) {
      throw invalid(root, "cursor position is negative");
    }
    return new Position(after, segment, offset);
  }

  /** The cursor error for {@code root} with {@code detail}. */
  public static InvalidCursorException invalid(String root, String detail) {
    return new InvalidCursorException("Invalid cursor for ledger '" + root + "': " + detail);
  }

  private static long field(String root, JsonNode node, String name) {
    JsonNode value = node.get(name);
    if (value == null || !value.isIntegralNumber() || !value.canConvertToLong()) {
      throw invalid(root, "cursor field '" + name + "' is missing or not an integer");
    }
    return value.longValue();
  }

  private static String rootDigest(String root) {
    // Every commit returns a cursor: remember the last root's digest (a hash per commit
    // otherwise). One immutable pair in a volatile field is safe to share across threads.
    RootDigest last = lastDigest;
    if (last != null && last.root().equals(root)) {
      return last.digest();
    }
    String digest = LedgerJson.sha256Hex(root).substring(0, 16);
    lastDigest = new RootDigest(root, digest);
    return digest;
  }

  private record RootDigest(String root, String digest) {}

  private static volatile RootDigest lastDigest;
}
