package dev.ledger.core.internal.journal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.ledger.core.Event;
import dev.ledger.core.internal.json.JsonFields;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes a journal line for a reader that folds states and never looks at events (a patch
 * log's replay, {@code PatchLog#patchesAfter}): the record's shell and its state or patch,
 * read straight from the line's bytes in one streaming pass, the patch built as a tree, the
 * events only counted. Each event is stepped over token by token (so the line must still be
 * well-formed JSON) but not built: the record holds one placeholder event per event, with
 * the right sequence and revision, an empty id and type, JSON null as payload and the
 * commit's time, so that its sequence range is right (what the scanner checks); a caller
 * hands out no events from it.
 *
 * <p>Same frame and checksum checks as {@link JournalLine#decode}, the same checks of the
 * record's own keys as {@link EventRecordReader}, and duplicate keys in the state or patch are
 * refused by the tree reader. The events' contents are not checked (verify and the event
 * readers check them). It accepts only records in the shape this library writes (format 2 or
 * 3, known keys, each once, of the right JSON types); for any other line it defers to
 * {@link JournalLine#decode}, so that a malformed, older or newer record fails (or reads)
 * exactly as it does there.
 */
public final class PatchRecordReader {
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

  private PatchRecordReader() {}

  /**
   * Decodes a line (without its newline) for its state or patch.
   *
   * @param line the line's bytes
   * @param length the line's length in {@code line}
   * @return the record, with placeholder events (see the class comment)
   * @throws JournalLine.DefectException if the frame, the checksum or the record is bad
   * @throws CommitRecord.FutureFormatException if the record is from a newer format
   */
  public static CommitRecord decode(byte[] line, int length) {
    int bodyLength = JournalLine.checkFrame(line, length);
    try {
      CommitRecord record = read(line, JournalLine.PREFIX, bodyLength);
      if (record != null) {
        return record;
      }
    } catch (IOException | IllegalArgumentException e) {
      // Not in the shape written here: the full decode gives the answer (and the message).
    }
    return JournalLine.decode(line, length);
  }

  /** The record, or null if the bytes are not a record in the shape this library writes. */
  private static CommitRecord read(byte[] bytes, int offset, int length) throws IOException {
    try (JsonParser in = LedgerJson.treeParser(bytes, offset, length)) {
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
      Instant committedAt = null;
      String commandId = null;
      String commandDigest = null;
      int events = 0;
      JsonNode state = null;
      JsonNode patch = null;
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
            committedAt = JsonFields.instant(in.getText(), "committedAt");
          }
          case EVENTS -> {
            if (token != JsonToken.START_ARRAY) {
              return null;
            }
            while ((token = in.nextToken()) != JsonToken.END_ARRAY) {
              if (token != JsonToken.START_OBJECT) {
                return null;
              }
              in.skipChildren();
              events++;
            }
          }
          case PATCH -> patch = LedgerJson.treeReader().readTree(in);
          case STATE -> state = LedgerJson.treeReader().readTree(in);
          case ROOT -> {
            if (token != JsonToken.VALUE_STRING) {
              return null;
            }
            root = in.getText();
          }
          default -> {
            if (token != JsonToken.VALUE_NUMBER_INT
                || in.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
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
          || stateVersion < 0 || stateVersion > Integer.MAX_VALUE
          || revision < 1 || firstSequence < 1 || (state == null) == (patch == null)) {
        return null;
      }
      List<Event> placeholders = new ArrayList<>(events);
      for (int i = 0; i < events; i++) {
        placeholders.add(new Event("", root, firstSequence + i, revision, "", committedAt,
            NullNode.getInstance(), null, null));
      }
      return new CommitRecord((int) format, root, revision, committedAt, firstSequence,
          placeholders, commandId, commandDigest, (int) stateVersion, state, patch);
    }
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
