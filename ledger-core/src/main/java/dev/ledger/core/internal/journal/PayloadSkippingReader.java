package dev.ledger.core.internal.journal;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.base.Preconditions;
import dev.ledger.core.Event;
import dev.ledger.core.internal.json.JsonFields;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads a commit record's canonical JSON as {@link CommitRecord#fromJson} does, with the same
 * checks, but streams the events instead of building their trees: each payload is parsed
 * (skipped token by token, duplicate keys refused) and given as {@link NullNode}. For
 * {@code verify()}, whose cost is otherwise the events: a record of 100 events is nearly all
 * events, and verify needs their count, sequences and well-formedness, never their payloads.
 * Verify reads most lines with {@link EventArrayScanner} instead; this reader decides the
 * lines the scan leaves to it (outside its subset), so their findings read as they did.
 *
 * <p>Duplicate keys are refused everywhere, as the strict mapper refuses them, but without the
 * parser's detector (a hash set per object): a bit per key in an event, a look-up in the
 * record's shell, the tree reader's own check for the members built as trees, and a list of
 * the names seen per open object while a payload is skipped. (Turning the parser's detector
 * on only for payloads does not work: Jackson recycles a parse context with the detector it
 * was first made with, so a nested object could go unchecked.) An {@code occurredAt} equal to the event before it (a record's events share the commit's
 * time) reuses that event's instant instead of parsing it again; any other one is parsed.
 * Not thread-safe: one per call.
 */
final class PayloadSkippingReader {
  /** Reads one member's value from a record being streamed (the record's end comes later). */
  private static final ObjectReader MEMBER = LedgerJson.mapper().reader()
      .without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .with(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);
  private static final int COMMAND_ID = 1;
  private static final int ID = 2;
  private static final int OCCURRED_AT = 4;
  private static final int OPERATION_ID = 8;
  private static final int PAYLOAD = 16;
  private static final int SEQUENCE = 32;
  private static final int TYPE = 64;

  private final JsonParser in;
  /** Names seen per open object while a payload is skipped, reused from event to event. */
  private final List<Names> levels = new ArrayList<>();
  private char[] lastOccurredAt = new char[0];
  private int lastOccurredAtLength = -1;
  private Instant lastInstant;
  private String lastType;
  private String lastCommandId;

  private PayloadSkippingReader(JsonParser in) {
    this.in = in;
  }

  /**
   * Reads the record in {@code bytes[offset..offset+length)}.
   *
   * @throws IOException if the bytes are not one valid JSON value, or a key repeats
   * @throws CommitRecord.FutureFormatException if the record's format is newer than
   *     {@link CommitRecord#GROUPED_FORMAT}
   * @throws IllegalArgumentException naming the first field that is missing or malformed
   */
  static CommitRecord read(byte[] bytes, int offset, int length) throws IOException {
    try (JsonParser in = LedgerJson.mapper().createParser(bytes, offset, length)) {
      // The parser's own duplicate detection keeps a hash set per object, as much garbage as
      // the line itself; keys are checked here instead (see the class comment).
      in.disable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
      return new PayloadSkippingReader(in).record();
    }
  }

  private CommitRecord record() throws IOException {
    Preconditions.checkArgument(in.nextToken() == JsonToken.START_OBJECT,
        "record is not a JSON object");
    ObjectNode shell = JsonNodeFactory.instance.objectNode();
    List<Event> events = null;
    for (String name = in.nextFieldName(); name != null; name = in.nextFieldName()) {
      if (shell.has(name)) {
        throw new JsonParseException(in, "Duplicate field '" + name + "'");
      }
      JsonToken token = in.nextToken();
      if (name.equals("events")) {
        Preconditions.checkArgument(token == JsonToken.START_ARRAY, "events must be an array");
        events = events();
        shell.putArray(name);
      } else {
        shell.set(name, (JsonNode) MEMBER.readTree(in));
      }
    }
    if (in.nextToken() != null) {
      throw new JsonParseException(in, "trailing token after the record");
    }
    return CommitRecord.fromJson(shell, events == null ? List.of() : events);
  }

  private List<Event> events() throws IOException {
    List<Event> events = new ArrayList<>();
    while (in.nextToken() != JsonToken.END_ARRAY) {
      Preconditions.checkArgument(in.currentToken() == JsonToken.START_OBJECT,
          "event is not an object");
      events.add(event());
    }
    return events;
  }

  private Event event() throws IOException {
    String id = null;
    String type = null;
    Instant occurredAt = null;
    String commandId = null;
    String operationId = null;
    long sequence = 0;
    int seen = 0;
    for (String name = in.nextFieldName(); name != null; name = in.nextFieldName()) {
      int key = switch (name) {
        case "commandId" -> COMMAND_ID;
        case "id" -> ID;
        case "occurredAt" -> OCCURRED_AT;
        case "operationId" -> OPERATION_ID;
        case "payload" -> PAYLOAD;
        case "sequence" -> SEQUENCE;
        case "type" -> TYPE;
        default -> throw new IllegalArgumentException("unknown event field '" + name + "'");
      };
      if ((seen & key) != 0) {
        throw new JsonParseException(in, "Duplicate field '" + name + "'");
      }
      seen |= key;
      JsonToken token = in.nextToken();
      if (key == PAYLOAD) {
        skipValue(token);
        continue;
      }
      if (key == SEQUENCE) {
        Preconditions.checkArgument(token == JsonToken.VALUE_NUMBER_INT
            && in.getNumberType() != JsonParser.NumberType.BIG_INTEGER,
            "field 'sequence' must be an integer");
        sequence = in.getLongValue();
        continue;
      }
      Preconditions.checkArgument(token == JsonToken.VALUE_STRING,
          "field '%s' must be a string", name);
      switch (key) {
        case ID -> id = in.getText();
        case OCCURRED_AT -> occurredAt = occurredAt();
        case TYPE -> type = lastType = same(lastType);
        case COMMAND_ID -> commandId = lastCommandId = same(lastCommandId);
        default -> operationId = in.getText();
      }
    }
    Preconditions.checkArgument((seen & PAYLOAD) != 0, "event payload missing");
    Preconditions.checkArgument(id != null, "field 'id' must be a string");
    Preconditions.checkArgument((seen & SEQUENCE) != 0, "field 'sequence' must be an integer");
    Preconditions.checkArgument(type != null, "field 'type' must be a string");
    Preconditions.checkArgument(occurredAt != null, "field 'occurredAt' must be a string");
    // Root and revision are the record's; fromJson sets them once it has read them.
    return new Event(id, "?", sequence, 1, type, occurredAt, NullNode.getInstance(), commandId,
        operationId);
  }

  /**
   * Reads past the value that starts with {@code token} (already read), refusing a key that
   * repeats in any object inside it. Names of one parser are canonical strings, so the lists
   * are short scans of mostly distinct names; a large object falls back to a set.
   */
  private void skipValue(JsonToken token) throws IOException {
    if (!token.isStructStart()) {
      return;
    }
    int depth = 0;
    open(depth++);
    while (depth > 0) {
      JsonToken t = in.nextToken();
      if (t == null) {
        throw new JsonParseException(in, "unexpected end of the record in a payload");
      }
      switch (t) {
        case START_OBJECT, START_ARRAY -> open(depth++);
        case END_OBJECT, END_ARRAY -> depth--;
        case FIELD_NAME -> {
          Names names = levels.get(depth - 1);
          if (!names.add(in.currentName())) {
            throw new JsonParseException(in, "Duplicate field '" + in.currentName() + "'");
          }
        }
        default -> { }
      }
    }
  }

  private void open(int depth) {
    if (levels.size() == depth) {
      levels.add(new Names());
    }
    levels.get(depth).clear();
  }

  /** The names of one open object of a payload (an array's level stays empty). */
  private static final class Names {
    private static final int SCAN = 16;
    private final ArrayList<String> list = new ArrayList<>();
    private java.util.HashSet<String> set;

    void clear() {
      list.clear();
      set = null;
    }

    /** Adds {@code name}; false if it was there already. */
    boolean add(String name) {
      if (set != null) {
        return set.add(name);
      }
      for (int i = 0; i < list.size(); i++) {
        if (list.get(i).equals(name)) {
          return false;
        }
      }
      list.add(name);
      if (list.size() > SCAN) {
        set = new java.util.HashSet<>(list);
      }
      return true;
    }
  }

  /** The current string token, as {@code previous} if it has the same characters. */
  private String same(String previous) throws IOException {
    if (previous != null) {
      int length = in.getTextLength();
      if (length == previous.length()) {
        char[] chars = in.getTextCharacters();
        int from = in.getTextOffset();
        boolean equal = true;
        for (int i = 0; i < length && equal; i++) {
          equal = chars[from + i] == previous.charAt(i);
        }
        if (equal) {
          return previous;
        }
      }
    }
    return in.getText();
  }

  /** The current string token as an instant: the previous event's if the text is the same. */
  private Instant occurredAt() throws IOException {
    char[] chars = in.getTextCharacters();
    int from = in.getTextOffset();
    int length = in.getTextLength();
    if (length == lastOccurredAtLength && Arrays.equals(chars, from, from + length,
        lastOccurredAt, 0, length)) {
      return lastInstant;
    }
    Instant parsed = JsonFields.instant(new String(chars, from, length), "occurredAt");
    lastOccurredAt = Arrays.copyOfRange(chars, from, from + length);
    lastOccurredAtLength = length;
    lastInstant = parsed;
    return parsed;
  }
}
