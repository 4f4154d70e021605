package dev.ledger.core.internal.journal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.ledger.core.Event;
import dev.ledger.core.internal.json.JsonFields;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes a journal line for a reader of events (replay, pages): the record's shell and its
 * events, read straight from the line's bytes with one streaming pass, without the record's
 * tree, and with the state or patch only scanned, never built. The record it returns holds
 * {@link NullNode} where the state or the patch was (whichever the line has): it is for
 * {@link CommitRecord#events()} and the positions, never for {@link CommitRecord#applyTo}.
 *
 * <p>Same frame and checksum checks as {@link JournalLine#decode}, and the same answer for a
 * line it accepts. It accepts only records in the shape this library writes (format 2 or 3,
 * known keys, each once, of the right JSON types); for any other line it defers to
 * {@link JournalLine#decode}, so that a malformed, older or newer record fails (or reads)
 * exactly as it does there. Duplicate keys are refused as there: by this reader for the
 * record's and the events' keys, by the tree reader for payloads. Payload trees are built
 * straight from the parser ({@link PayloadTrees}); a record with a payload the builder leaves
 * to the mapper (a float, a repeated key) is read again with the mapper's tree reader.
 */
public final class EventRecordReader {
  /** Builds payload trees; a repeated key in a payload fails as it does in a full decode. */
  private static final ObjectReader PAYLOAD = LedgerJson.mapper().reader()
      .without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .with(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);

  private static final int COMMAND = 1;
  private static final int COMMITTED_AT = 1 << 1;
  private static final int EVENTS = 1 << 2;
  private static final int FIRST_SEQUENCE = 1 << 3;
  private static final int FORCED_THROUGH = 1 << 4;
  private static final int FORMAT = 1 << 5;
  private static final int PATCH = 1 << 6;
  private static final int REVISION = 1 << 7;
  private static final int ROOT = 1 << 8;
  private static final int STATE = 1 << 9;
  private static final int STATE_VERSION = 1 << 10;

  private EventRecordReader() {}

  /**
   * Decodes a line (without its newline) for its events.
   *
   * @param line the line's bytes
   * @param length the line's length in {@code line}
   * @return the record, with {@link NullNode} for its state or patch
   * @throws JournalLine.DefectException if the frame, the checksum or the record is bad
   * @throws CommitRecord.FutureFormatException if the record is from a newer format
   */
  public static CommitRecord decode(byte[] line, int length) {
    int bodyLength = JournalLine.checkFrame(line, length);
    try {
      CommitRecord record;
      try {
        record = read(line, JournalLine.PREFIX, bodyLength, false);
      } catch (PayloadTrees.Unsupported e) {
        record = read(line, JournalLine.PREFIX, bodyLength, true);
      }
      if (record != null) {
        return record;
      }
    } catch (IOException | IllegalArgumentException e) {
      // Not in the shape written here: the full decode gives the answer (and the message).
    }
    return JournalLine.decode(line, length);
  }

  /**
   * The record, or null if the bytes are not a record in the shape this library writes.
   * Payloads are built by {@link PayloadTrees}, or with {@code byReader} by the mapper's tree
   * reader (for a record where the builder threw {@link PayloadTrees.Unsupported}).
   */
  private static CommitRecord read(byte[] bytes, int offset, int length, boolean byReader)
      throws IOException {
    try (JsonParser in = LedgerJson.mapper().createParser(bytes, offset, length)) {
      // Keys are checked here, each bit once; payload trees check theirs as they are built.
      in.disable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
      if (in.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      int seen = 0;
      String root = null;
      long revision = 0;
      long firstSequence = 0;
      long format = 0;
      long forcedThrough = 0;
      long stateVersion = 0;
      String committedAtText = null;
      Instant committedAt = null;
      String commandId = null;
      String commandDigest = null;
      List<Draft> drafts = null;
      for (String name = in.nextFieldName(); name != null; name = in.nextFieldName()) {
        int bit = bit(name);
        if (bit == 0 || (seen & bit) != 0) {
          return null;
        }
        seen |= bit;
        JsonToken token = in.nextToken();
        switch (bit) {
          case COMMAND -> {
            if (token != JsonToken.START_OBJECT) {
              return null;
            }
            for (String key = in.nextFieldName(); key != null; key = in.nextFieldName()) {
              if (in.nextToken() != JsonToken.VALUE_STRING) {
                return null;
              }
              if (key.equals("id") && commandId == null) {
                commandId = in.getText();
              } else if (key.equals("digest") && commandDigest == null) {
                commandDigest = in.getText();
              } else {
                return null;
              }
            }
            if (commandId == null || commandDigest == null) {
              return null;
            }
          }
          case COMMITTED_AT -> {
            if (token != JsonToken.VALUE_STRING) {
              return null;
            }
            committedAtText = in.getText();
            committedAt = JsonFields.instant(committedAtText, "committedAt");
          }
          case EVENTS -> {
            if (token != JsonToken.START_ARRAY) {
              return null;
            }
            drafts = events(in, committedAtText, committedAt, byReader);
            if (drafts == null) {
              return null;
            }
          }
          case PATCH, STATE -> in.skipChildren();
          case ROOT -> {
            if (token != JsonToken.VALUE_STRING) {
              return null;
            }
            root = in.getText();
          }
          default -> {
            if (!isLong(in, token)) {
              return null;
            }
            long value = in.getLongValue();
            switch (bit) {
              case FIRST_SEQUENCE -> firstSequence = value;
              case FORCED_THROUGH -> forcedThrough = value;
              case FORMAT -> format = value;
              case REVISION -> revision = value;
              default -> stateVersion = value;
            }
          }
        }
      }
      if (in.nextToken() != null) {
        return null;
      }
      int required = COMMITTED_AT | EVENTS | FIRST_SEQUENCE | FORMAT | REVISION | ROOT
          | STATE_VERSION;
      if ((seen & required) != required || (format != 2 && format != 3)
          || (format == 2 && (seen & FORCED_THROUGH) != 0)
          || ((seen & FORCED_THROUGH) != 0 && (forcedThrough < 0
              || forcedThrough >= revision - 1))
          || stateVersion < 0 || stateVersion > Integer.MAX_VALUE) {
        return null;
      }
      List<Event> events = new ArrayList<>(drafts.size());
      for (Draft d : drafts) {
        events.add(new Event(d.id, root, d.sequence, revision, d.type, d.occurredAt, d.payload,
            d.commandId, d.operationId));
      }
      JsonNode skipped = NullNode.getInstance();
      return new CommitRecord((int) format, root, revision, committedAt, firstSequence, events,
          commandId, commandDigest, (int) stateVersion, (seen & STATE) != 0 ? skipped : null,
          (seen & PATCH) != 0 ? skipped : null);
    }
  }

  /** An event read before the record's root and revision are known (they come after it). */
  private record Draft(String id, long sequence, String type, Instant occurredAt,
      JsonNode payload, String commandId, String operationId) {}

  /**
   * The events of the array the parser is at, or null if one is not in the shape written
   * here. Events of one record were stamped with its commit time: an {@code occurredAt} equal
   * to {@code committedAt}'s text shares its instant instead of being parsed again, and a type
   * equal to the previous event's shares its string.
   */
  private static List<Draft> events(JsonParser in, String committedAtText, Instant committedAt,
      boolean byReader) throws IOException {
    List<Draft> drafts = new ArrayList<>();
    String previousType = null;
    JsonToken token;
    while ((token = in.nextToken()) != JsonToken.END_ARRAY) {
      if (token != JsonToken.START_OBJECT) {
        return null;
      }
      String id = null;
      String type = null;
      Instant occurredAt = null;
      String commandId = null;
      String operationId = null;
      JsonNode payload = null;
      long sequence = 0;
      boolean hasSequence = false;
      for (String name = in.nextFieldName(); name != null; name = in.nextFieldName()) {
        JsonToken value = in.nextToken();
        switch (name) {
          case "payload" -> {
            if (payload != null) {
              return null;
            }
            payload = byReader ? PAYLOAD.readTree(in) : PayloadTrees.read(in);
          }
          case "sequence" -> {
            if (hasSequence || !isLong(in, value)) {
              return null;
            }
            sequence = in.getLongValue();
            hasSequence = true;
          }
          case "id", "type", "occurredAt", "commandId", "operationId" -> {
            if (value != JsonToken.VALUE_STRING) {
              return null;
            }
            switch (name) {
              case "id" -> {
                if (id != null) {
                  return null;
                }
                id = in.getText();
              }
              case "type" -> {
                if (type != null) {
                  return null;
                }
                type = sameText(in, previousType) ? previousType : in.getText();
                previousType = type;
              }
              case "occurredAt" -> {
                if (occurredAt != null) {
                  return null;
                }
                occurredAt = committedAt != null && sameText(in, committedAtText) ? committedAt
                    : JsonFields.instant(in.getText(), "occurredAt");
              }
              case "commandId" -> {
                if (commandId != null) {
                  return null;
                }
                commandId = in.getText();
              }
              default -> {
                if (operationId != null) {
                  return null;
                }
                operationId = in.getText();
              }
            }
          }
          default -> {
            return null;
          }
        }
      }
      if (id == null || type == null || occurredAt == null || payload == null || !hasSequence) {
        return null;
      }
      drafts.add(new Draft(id, sequence, type, occurredAt, payload, commandId, operationId));
    }
    return drafts;
  }

  /** Whether the string token the parser is at has exactly {@code text}'s characters. */
  private static boolean sameText(JsonParser in, String text) throws IOException {
    if (text == null) {
      return false;
    }
    int length = in.getTextLength();
    if (length != text.length()) {
      return false;
    }
    char[] chars = in.getTextCharacters();
    int offset = in.getTextOffset();
    for (int i = 0; i < length; i++) {
      if (chars[offset + i] != text.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /** Whether the token is an integer that fits a long (as {@code JsonFields.integer}). */
  private static boolean isLong(JsonParser in, JsonToken token) throws IOException {
    return token == JsonToken.VALUE_NUMBER_INT
        && in.getNumberType() != JsonParser.NumberType.BIG_INTEGER;
  }

  private static int bit(String name) {
    return switch (name) {
      case "command" -> COMMAND;
      case "committedAt" -> COMMITTED_AT;
      case "events" -> EVENTS;
      case "firstSequence" -> FIRST_SEQUENCE;
      case "forcedThrough" -> FORCED_THROUGH;
      case "format" -> FORMAT;
      case "patch" -> PATCH;
      case "revision" -> REVISION;
      case "root" -> ROOT;
      case "state" -> STATE;
      case "stateVersion" -> STATE_VERSION;
      default -> 0;
    };
  }
}
