package dev.ledger.core.internal.journal;

import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.Event;
import dev.ledger.core.internal.json.JsonFields;
import dev.ledger.core.internal.json.JsonScanner;
import dev.ledger.core.internal.json.LedgerJson;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a record for {@link PatchRecordReader} straight from its bytes with a
 * {@link JsonScanner}, without a JSON parser: the record's own keys, its state or patch built
 * as a tree, its events stepped over (checked as the scanner checks what it skips) and
 * counted. The parser's symbol table (every document key and queue sequence a patch names is
 * a new member name to it) and its token-by-token pass over the events were most of the cost
 * of replaying a collection's journal.
 *
 * <p><b>What it accepts</b> is a subset of what {@link PatchRecordReader}'s streaming read
 * accepts, read to the same record: the keys and checks of {@link RecordShell} (format 2 or 3,
 * known keys each once, of the right JSON types, {@code forcedThrough} only in format 3 and
 * below the revision before this one, a positive revision and first sequence, a state version
 * that fits an int, exactly one of state and patch, nothing after the record); events that are
 * objects of at most {@link #MAX_EVENT} bytes each (so that no name or number in them can
 * pass the parser's bounds, which its token pass checks and the scanner does not); a state or patch of objects, arrays, strings, integers of at most 18 characters,
 * booleans and null, no member name repeated in an object, nested no deeper than the parser
 * allows ({@link LedgerJson#MAX_NESTING_DEPTH}, counted from the record), names and strings
 * no longer in bytes than the parser's bounds on them, built with the
 * mapper's node factory into the nodes its tree reader builds for these kinds (as
 * {@link PayloadTrees} does: an {@code IntNode} for an integer that fits an int, else a
 * {@code LongNode}). The scanner checks what it reads at least as strictly as the parser (see
 * {@link JsonScanner}). For anything else (a float, a longer integer, a repeated key, a
 * malformed or unexpected value) it answers null and the caller reads the record as it did
 * before, so that every record outside the subset, valid or not, reads or fails exactly as it
 * did.
 *
 * <p>Stateless apart from one call's own objects; thread-safe.
 */
final class PatchRecordScanner {
  private static final JsonNodeFactory NODES = LedgerJson.mapper().getNodeFactory();
  private static final StreamReadConstraints LIMITS =
      LedgerJson.mapper().getFactory().streamReadConstraints();
  /**
   * Longest event, in bytes, stepped over here: none of its names or numbers can then be
   * longer than the parser's bounds on them, which the scanner does not check.
   */
  private static final int MAX_EVENT =
      Math.min(LIMITS.getMaxNameLength(), LIMITS.getMaxNumberLength());
  /** The record's keys, each at the index of its bit in {@link RecordShell}'s order. */
  private static final byte[][] KEYS = names("command", "committedAt", "events", "firstSequence",
      "forcedThrough", "format", "patch", "revision", "root", "state", "stateVersion");
  private static final int COMMAND = 0;
  private static final int COMMITTED_AT = 1;
  private static final int EVENTS = 2;
  private static final int FIRST_SEQUENCE = 3;
  private static final int FORCED_THROUGH = 4;
  private static final int FORMAT = 5;
  private static final int PATCH = 6;
  private static final int REVISION = 7;
  private static final int ROOT = 8;
  private static final int STATE = 9;
  private static final int STATE_VERSION = 10;
  private static final int REQUIRED = 1 << COMMITTED_AT | 1 << EVENTS | 1 << FIRST_SEQUENCE
      | 1 << FORMAT | 1 << REVISION | 1 << ROOT | 1 << STATE_VERSION;
  private static final byte[][] COMMAND_KEYS = names("digest", "id");

  /** Anything outside the accepted subset; no stack trace. */
  private static final class Outside extends RuntimeException {
    private static final long serialVersionUID = 1L;
    static final Outside INSTANCE = new Outside();

    private Outside() {
      super("outside the scanned subset", null, false, false);
    }
  }

  private final JsonScanner in;

  private PatchRecordScanner(byte[] bytes, int offset, int length) {
    this.in = new JsonScanner(bytes, offset, length);
  }

  /**
   * The record in {@code bytes[offset..offset+length)}, with placeholder events as
   * {@link PatchRecordReader} makes them, or null if it is outside the accepted subset (see
   * the class comment).
   */
  static CommitRecord read(byte[] bytes, int offset, int length) {
    try {
      return new PatchRecordScanner(bytes, offset, length).record();
    } catch (RuntimeException e) {
      // Outside the subset, malformed, or an instant that does not parse: the caller's
      // streaming read decides, as it did before this scan.
      return null;
    }
  }

  private CommitRecord record() {
    if (!in.beginObject()) {
      return null;
    }
    int seen = 0;
    String root = null;
    String committedAtText = null;
    String commandId = null;
    String commandDigest = null;
    long revision = 0;
    long firstSequence = 0;
    long format = 0;
    long forcedThrough = 0;
    long stateVersion = 0;
    int events = 0;
    JsonNode state = null;
    JsonNode patch = null;
    do {
      int key = in.name(KEYS);
      if (key < 0 || (seen & 1 << key) != 0) {
        return null;
      }
      seen |= 1 << key;
      switch (key) {
        case COMMAND -> {
          if (in.peek() != '{' || !in.beginObject()) {
            return null;
          }
          do {
            int k = in.name(COMMAND_KEYS);
            if (in.peek() != '"') {
              return null;
            }
            String value = in.string();
            if (k == 0 && commandDigest == null) {
              commandDigest = value;
            } else if (k == 1 && commandId == null) {
              commandId = value;
            } else {
              return null;
            }
          } while (in.nextMember());
          if (commandId == null || commandDigest == null) {
            return null;
          }
        }
        case COMMITTED_AT -> committedAtText = text();
        case EVENTS -> events = events();
        case PATCH -> patch = tree(1);
        case STATE -> state = tree(1);
        case ROOT -> root = text();
        default -> {
          Long value = in.integer();
          if (value == null) {
            return null;
          }
          switch (key) {
            case FIRST_SEQUENCE -> firstSequence = value;
            case FORCED_THROUGH -> forcedThrough = value;
            case FORMAT -> format = value;
            case REVISION -> revision = value;
            default -> stateVersion = value;
          }
        }
      }
    } while (in.nextMember());
    if (!in.atEnd()) {
      return null;
    }
    boolean forced = (seen & 1 << FORCED_THROUGH) != 0;
    boolean hasState = (seen & 1 << STATE) != 0;
    if ((seen & REQUIRED) != REQUIRED || (format != 2 && format != 3)
        || (format == 2 && forced)
        || (forced && (forcedThrough < 0 || forcedThrough >= revision - 1))
        || stateVersion < 0 || stateVersion > Integer.MAX_VALUE
        || revision < 1 || firstSequence < 1
        || hasState == ((seen & 1 << PATCH) != 0)) {
      return null;
    }
    Instant committedAt = JsonFields.instant(committedAtText, "committedAt");
    List<Event> placeholders = new ArrayList<>(events);
    for (int i = 0; i < events; i++) {
      placeholders.add(new Event("", root, firstSequence + i, revision, "", committedAt,
          NullNode.getInstance(), null, null));
    }
    return new CommitRecord((int) format, root, revision, committedAt, firstSequence,
        placeholders, commandId, commandDigest, (int) stateVersion, state, patch);
  }

  /** A string value, or outside if the value here is not a string. */
  private String text() {
    if (in.peek() != '"') {
      throw Outside.INSTANCE;
    }
    return in.string();
  }

  /** Steps over the events array, each event an object, checking it; returns their count. */
  private int events() {
    if (in.peek() != '[') {
      throw Outside.INSTANCE;
    }
    in.reset(in.position() + 1);
    if (in.peek() == ']') {
      in.reset(in.position() + 1);
      return 0;
    }
    int count = 0;
    while (true) {
      if (in.peek() != '{') {
        throw Outside.INSTANCE;
      }
      int start = in.position();
      // Inside the record and its events array.
      in.skipValue(2);
      if (in.position() - start > MAX_EVENT) {
        throw Outside.INSTANCE;
      }
      count++;
      byte next = in.peek();
      in.reset(in.position() + 1);
      if (next == ']') {
        return count;
      }
      if (next != ',') {
        throw Outside.INSTANCE;
      }
    }
  }

  /** The value here as a tree; {@code depth} is the containers it is inside. */
  private JsonNode tree(int depth) {
    byte c = in.peek();
    switch (c) {
      case '{' -> {
        nest(depth);
        ObjectNode node = NODES.objectNode();
        if (in.beginObject()) {
          do {
            int start = in.position();
            String name = in.name();
            if (in.position() - start > LIMITS.getMaxNameLength()) {
              throw Outside.INSTANCE; // as long as the parser's bound, or longer
            }
            if (node.replace(name, tree(depth + 1)) != null) {
              throw Outside.INSTANCE; // the parser's reader refuses it, with its message
            }
          } while (in.nextMember());
        }
        return node;
      }
      case '[' -> {
        nest(depth);
        ArrayNode node = NODES.arrayNode();
        in.reset(in.position() + 1);
        if (in.peek() == ']') {
          in.reset(in.position() + 1);
          return node;
        }
        while (true) {
          node.add(tree(depth + 1));
          byte next = in.peek();
          in.reset(in.position() + 1);
          if (next == ']') {
            return node;
          }
          if (next != ',') {
            throw Outside.INSTANCE;
          }
        }
      }
      case '"' -> {
        int start = in.position();
        String text = in.string();
        if (in.position() - start > LIMITS.getMaxStringLength()) {
          throw Outside.INSTANCE;
        }
        return NODES.textNode(text);
      }
      case 't', 'f', 'n' -> {
        int at = in.position();
        in.skipValue(depth);
        int length = in.position() - at;
        return length == 4 && c == 't' ? NODES.booleanNode(true)
            : length == 5 && c == 'f' ? NODES.booleanNode(false)
            : NODES.nullNode();
      }
      default -> {
        Long value = in.integer();
        if (value == null) {
          throw Outside.INSTANCE; // a float, or an integer the parser reads its own way
        }
        long v = value;
        return v == (int) v ? NODES.numberNode((int) v) : NODES.numberNode(v);
      }
    }
  }

  /** Refuses a container at the parser's depth bound (the parser's reader then reports it). */
  private static void nest(int depth) {
    if (depth + 1 > LedgerJson.MAX_NESTING_DEPTH) {
      throw Outside.INSTANCE;
    }
  }

  private static byte[][] names(String... names) {
    byte[][] out = new byte[names.length][];
    for (int i = 0; i < names.length; i++) {
      out[i] = names[i].getBytes(StandardCharsets.US_ASCII);
    }
    return out;
  }
}
