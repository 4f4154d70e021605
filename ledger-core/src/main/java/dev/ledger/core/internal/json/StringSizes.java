package dev.ledger.core.internal.json;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.IdentityHashMap;

/**
 * The canonical sizes of the long strings of the last tree sized through it, remembered by
 * identity, so that sizing a ledger's next state reads only the strings that changed. The
 * states of one ledger mostly hold the same string objects from one commit to the next: a
 * member a caller leaves unchanged keeps its string through value mapping, tree copies and
 * loads (the tree's strings are handed to the mapped value and back). A string met again
 * costs a lookup instead of a pass over its characters; a new string is counted as
 * {@link LedgerJson#canonicalSize} counts it. Strings are immutable, so a remembered size is
 * always right for the object it is kept for.
 *
 * <p>Only the strings of the last tree sized are kept (they are that state's, which its ledger
 * holds anyway), only those of at least {@link #MIN_LENGTH} characters, and at most
 * {@link #MAX_ENTRIES} of them. Thread-safe: each
 * sizing reads the table the previous one published and publishes a new one; two sizings at
 * once only lose some reuse.
 */
public final class StringSizes {
  /** Strings shorter than this are counted, not remembered: a lookup would cost as much. */
  static final int MIN_LENGTH = 64;
  /**
   * At most this many strings are remembered per state (a bound on the table's memory beside
   * a state of very many long strings); the rest are counted each time.
   */
  static final int MAX_ENTRIES = 4096;

  private volatile IdentityHashMap<String, Long> last = new IdentityHashMap<>();

  /**
   * The length of {@link LedgerJson#canonical}{@code (node)}, as
   * {@link LedgerJson#canonicalSize}, reusing the sizes of strings the previous call met.
   *
   * @param node the tree
   * @return its canonical size in bytes
   * @throws IllegalArgumentException if the value cannot be written as JSON
   */
  public int canonicalSize(JsonNode node) {
    Sizing sizing = new Sizing(last);
    long counted = CanonicalSize.of(node, sizing);
    if (counted == CanonicalSize.UNCOUNTED) {
      return LedgerJson.canonicalSize(node);
    }
    last = sizing.next;
    return Math.toIntExact(counted);
  }

  /** One sizing: the previous table, and the one it builds for the next. */
  static final class Sizing {
    private final IdentityHashMap<String, Long> previous;
    final IdentityHashMap<String, Long> next = new IdentityHashMap<>();

    Sizing(IdentityHashMap<String, Long> previous) {
      this.previous = previous;
    }

    /** The quoted, escaped UTF-8 length of {@code text}. */
    long size(String text) {
      if (text.length() < MIN_LENGTH) {
        return CanonicalSize.string(text);
      }
      Long known = previous.get(text);
      long size = known != null ? known : CanonicalSize.string(text);
      if (next.size() < MAX_ENTRIES) {
        next.put(text, known != null ? known : Long.valueOf(size));
      }
      return size;
    }
  }
}
