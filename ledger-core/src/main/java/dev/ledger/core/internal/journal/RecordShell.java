package dev.ledger.core.internal.journal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.ledger.core.internal.json.JsonFields;
import java.io.IOException;
import java.time.Instant;

/**
 * A journal record's own keys, read in one streaming pass for the readers that build only part
 * of a record ({@link EventRecordReader} builds the events, {@link PatchRecordReader} the state
 * or patch). The reader's {@link Parts} reads the events array, the state and the patch; this
 * class reads everything else and decides whether the record is in the shape this library
 * writes: format 2 or 3, only known keys, each once, of the right JSON types ({@code
 * forcedThrough} only in format 3 and below the revision before this one), integers that fit a
 * long, a positive revision and first sequence, a state version that fits an int, and exactly
 * one of state and patch. Anything else makes {@link #read} answer null, and the caller defers
 * to {@link JournalLine#decode}, so that a malformed, older or newer record fails (or reads)
 * exactly as it does there. Not thread-safe: one instance per line.
 */
final class RecordShell {
  /** What a reader builds, skips or counts of a record's events, state and patch. */
  interface Parts {
    /**
     * Reads the events array, the parser at its {@code START_ARRAY} and to be left at its
     * {@code END_ARRAY}.
     *
     * @param shell the keys read so far ({@code committedAt} when it came first, as written)
     * @return false if an event is not in the shape this library writes
     */
    boolean events(JsonParser in, RecordShell shell) throws IOException;

    /** Reads the state, the parser at its first token and to be left at its last. */
    void state(JsonParser in) throws IOException;

    /** Reads the patch, the parser at its first token and to be left at its last. */
    void patch(JsonParser in) throws IOException;
  }

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
  private static final int REQUIRED = COMMITTED_AT | EVENTS | FIRST_SEQUENCE | FORMAT | REVISION
      | ROOT | STATE_VERSION;

  private int seen;
  String root;
  long revision;
  long firstSequence;
  int format;
  int stateVersion;
  /** The commit time as written, for events stamped with it. */
  String committedAtText;
  Instant committedAt;
  String commandId;
  String commandDigest;

  private RecordShell() {}

  /** Whether the record holds a state (otherwise it holds a patch). */
  boolean hasState() {
    return (seen & STATE) != 0;
  }

  /**
   * Reads the record whose {@code START_OBJECT} is the parser's next token, through its end.
   *
   * @return its keys, or null if the record is not in the shape this library writes
   * @throws IOException if the parser fails, or a part does
   * @throws IllegalArgumentException if {@code committedAt} is not an instant
   */
  static RecordShell read(JsonParser in, Parts parts) throws IOException {
    if (in.nextToken() != JsonToken.START_OBJECT) {
      return null;
    }
    RecordShell shell = new RecordShell();
    long format = 0;
    long forcedThrough = 0;
    long stateVersion = 0;
    for (String name = in.nextFieldName(); name != null; name = in.nextFieldName()) {
      int bit = bit(name);
      if (bit == 0 || (shell.seen & bit) != 0) {
        return null;
      }
      shell.seen |= bit;
      JsonToken token = in.nextToken();
      switch (bit) {
        case COMMAND -> {
          if (token != JsonToken.START_OBJECT || !shell.command(in)) {
            return null;
          }
        }
        case COMMITTED_AT -> {
          if (token != JsonToken.VALUE_STRING) {
            return null;
          }
          shell.committedAtText = in.getText();
          shell.committedAt = JsonFields.instant(shell.committedAtText, "committedAt");
        }
        case EVENTS -> {
          if (token != JsonToken.START_ARRAY || !parts.events(in, shell)) {
            return null;
          }
        }
        case PATCH -> parts.patch(in);
        case STATE -> parts.state(in);
        case ROOT -> {
          if (token != JsonToken.VALUE_STRING) {
            return null;
          }
          shell.root = in.getText();
        }
        default -> {
          if (!isLong(in, token)) {
            return null;
          }
          long value = in.getLongValue();
          switch (bit) {
            case FIRST_SEQUENCE -> shell.firstSequence = value;
            case FORCED_THROUGH -> forcedThrough = value;
            case FORMAT -> format = value;
            case REVISION -> shell.revision = value;
            default -> stateVersion = value;
          }
        }
      }
    }
    if (in.nextToken() != null) {
      return null;
    }
    boolean forced = (shell.seen & FORCED_THROUGH) != 0;
    if ((shell.seen & REQUIRED) != REQUIRED || (format != 2 && format != 3)
        || (format == 2 && forced)
        || (forced && (forcedThrough < 0 || forcedThrough >= shell.revision - 1))
        || stateVersion < 0 || stateVersion > Integer.MAX_VALUE
        || shell.revision < 1 || shell.firstSequence < 1
        || shell.hasState() == ((shell.seen & PATCH) != 0)) {
      return null;
    }
    shell.format = (int) format;
    shell.stateVersion = (int) stateVersion;
    return shell;
  }

  /** Reads the command object ({@code id} and {@code digest}, strings, each once). */
  private boolean command(JsonParser in) throws IOException {
    for (String key = in.nextFieldName(); key != null; key = in.nextFieldName()) {
      if (in.nextToken() != JsonToken.VALUE_STRING) {
        return false;
      }
      if (key.equals("id") && commandId == null) {
        commandId = in.getText();
      } else if (key.equals("digest") && commandDigest == null) {
        commandDigest = in.getText();
      } else {
        return false;
      }
    }
    return commandId != null && commandDigest != null;
  }

  /** Whether the token is an integer that fits a long (as {@code JsonFields.integer}). */
  static boolean isLong(JsonParser in, JsonToken token) throws IOException {
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
