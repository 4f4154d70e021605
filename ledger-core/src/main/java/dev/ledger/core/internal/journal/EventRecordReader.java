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
 * line it accepts. It accepts only records in the shape this library writes (the record's keys
 * as {@link RecordShell} checks them; each event's keys known, each once, of the right JSON
 * types); for any other line it defers to
 * {@link JournalLine#decode}, so that a malformed, older or newer record fails (or reads)
 * exactly as it does there. Duplicate keys are refused as there: by the shell for the
 * record's keys, by this reader for the events' keys, by the tree builders for payloads. Payload trees are built
 * straight from the parser ({@link PayloadTrees}); a record with a payload the builder leaves
 * to the mapper (a float, a repeated key) is read again with the mapper's tree reader. A
 * record whose events array is in the subset {@link EventArrayScanner} reads has its events
 * and payload trees read straight from the bytes, and only the rest parsed as above.
 */
public final class EventRecordReader {
  /** Builds payload trees; a repeated key in a payload fails as it does in a full decode. */
  private static final ObjectReader PAYLOAD = LedgerJson.mapper().reader()
      .without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .with(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);

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
    EventArrayScanner.Events scanned = EventArrayScanner.scan(line, JournalLine.PREFIX,
        bodyLength, true);
    if (scanned != null) {
      // The events and their payloads read from the bytes; the shell parsed as below with the
      // array cut out. Anything it does not accept is answered by the whole line's reading.
      byte[] shell = EventArrayScanner.withoutEvents(line, JournalLine.PREFIX, bodyLength,
          scanned);
      try {
        CommitRecord record = read(shell, 0, shell.length, false, scanned.events());
        if (record != null) {
          return record;
        }
      } catch (IOException | RuntimeException e) {
        // read the whole line below
      }
    }
    try {
      CommitRecord record;
      try {
        record = read(line, JournalLine.PREFIX, bodyLength, false, null);
      } catch (PayloadTrees.Unsupported e) {
        record = read(line, JournalLine.PREFIX, bodyLength, true, null);
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
  private static CommitRecord read(byte[] bytes, int offset, int length, boolean byReader,
      List<EventArrayScanner.Scanned> scanned) throws IOException {
    try (JsonParser in = LedgerJson.mapper().createParser(bytes, offset, length)) {
      // Keys are checked by the shell, each once; payload trees check theirs as they are built.
      in.disable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
      Parts parts = new Parts(byReader, scanned);
      RecordShell shell = RecordShell.read(in, parts);
      if (shell == null) {
        return null;
      }
      List<Event> events = new ArrayList<>(parts.drafts.size());
      for (Draft d : parts.drafts) {
        events.add(new Event(d.id, shell.root, d.sequence, shell.revision, d.type, d.occurredAt,
            d.payload, d.commandId, d.operationId));
      }
      JsonNode skipped = NullNode.getInstance();
      return new CommitRecord(shell.format, shell.root, shell.revision, shell.committedAt,
          shell.firstSequence, events, shell.commandId, shell.commandDigest, shell.stateVersion,
          shell.hasState() ? skipped : null, shell.hasState() ? null : skipped);
    }
  }

  /** Builds the events; steps over the state or patch. */
  private static final class Parts implements RecordShell.Parts {
    private final boolean byReader;
    /** The events read apart (the array in the bytes is then empty), or null. */
    private final List<EventArrayScanner.Scanned> scanned;
    private List<Draft> drafts;

    Parts(boolean byReader, List<EventArrayScanner.Scanned> scanned) {
      this.byReader = byReader;
      this.scanned = scanned;
    }

    @Override
    public boolean events(JsonParser in, RecordShell shell) throws IOException {
      drafts = EventRecordReader.events(in, shell.committedAtText, shell.committedAt, byReader);
      if (drafts == null || scanned == null) {
        return drafts != null;
      }
      if (!drafts.isEmpty()) {
        return false;
      }
      drafts = new ArrayList<>(scanned.size());
      for (EventArrayScanner.Scanned e : scanned) {
        drafts.add(new Draft(e.id(), e.sequence(), e.type(), e.occurredAt(), e.payload(),
            e.commandId(), e.operationId()));
      }
      return true;
    }

    @Override
    public void state(JsonParser in) throws IOException {
      in.skipChildren();
    }

    @Override
    public void patch(JsonParser in) throws IOException {
      in.skipChildren();
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
            if (hasSequence || !RecordShell.isLong(in, value)) {
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
}
