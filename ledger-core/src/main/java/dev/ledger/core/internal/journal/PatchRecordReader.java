package dev.ledger.core.internal.journal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.ledger.core.Event;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
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
 * <p>A record in the shape this library writes is read without a parser, by
 * {@link PatchRecordScanner}, to the same record; one it does not accept is read as follows.
 *
 * <p>Same frame and checksum checks as {@link JournalLine#decode}, the record's own keys read
 * and checked by {@link RecordShell} (as for {@link EventRecordReader}), and duplicate keys in
 * the state or patch refused by the tree reader. The events' contents are not checked (verify and the event
 * readers check them). It accepts only records in the shape this library writes (format 2 or
 * 3, known keys, each once, of the right JSON types); for any other line it defers to
 * {@link JournalLine#decode}, so that a malformed, older or newer record fails (or reads)
 * exactly as it does there.
 */
public final class PatchRecordReader {
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
    CommitRecord scanned = PatchRecordScanner.read(line, JournalLine.PREFIX, bodyLength);
    if (scanned != null) {
      return scanned;
    }
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
    return read(bytes, offset, length, null);
  }

  /**
   * As {@link #read(byte[], int, int)}, for a record whose events were read apart
   * ({@link EventArrayScanner}) and whose {@code events} array in the bytes is empty: the
   * record holds {@code scanned} as its events (null: placeholders, counted in the bytes).
   * For verify, which needs the events checked and counted and the state or patch built.
   */
  static CommitRecord read(byte[] bytes, int offset, int length,
      List<EventArrayScanner.Scanned> scanned) throws IOException {
    try (JsonParser in = LedgerJson.treeParser(bytes, offset, length)) {
      Parts parts = new Parts();
      RecordShell shell = RecordShell.read(in, parts);
      if (shell == null) {
        return null;
      }
      if (scanned != null) {
        if (parts.events != 0) {
          return null;
        }
        List<Event> events = new ArrayList<>(scanned.size());
        for (EventArrayScanner.Scanned e : scanned) {
          events.add(new Event(e.id(), shell.root, e.sequence(), shell.revision, e.type(),
              e.occurredAt(), e.payload(), e.commandId(), e.operationId()));
        }
        return new CommitRecord(shell.format, shell.root, shell.revision, shell.committedAt,
            shell.firstSequence, events, shell.commandId, shell.commandDigest,
            shell.stateVersion, parts.state, parts.patch);
      }
      List<Event> placeholders = new ArrayList<>(parts.events);
      for (int i = 0; i < parts.events; i++) {
        placeholders.add(new Event("", shell.root, shell.firstSequence + i, shell.revision, "",
            shell.committedAt, NullNode.getInstance(), null, null));
      }
      return new CommitRecord(shell.format, shell.root, shell.revision, shell.committedAt,
          shell.firstSequence, placeholders, shell.commandId, shell.commandDigest,
          shell.stateVersion, parts.state, parts.patch);
    }
  }

  /** Builds the state or patch as a tree; counts the events, stepping over each. */
  private static final class Parts implements RecordShell.Parts {
    private int events;
    private JsonNode state;
    private JsonNode patch;

    @Override
    public boolean events(JsonParser in, RecordShell shell) throws IOException {
      JsonToken token;
      while ((token = in.nextToken()) != JsonToken.END_ARRAY) {
        if (token != JsonToken.START_OBJECT) {
          return false;
        }
        in.skipChildren();
        events++;
      }
      return true;
    }

    @Override
    public void state(JsonParser in) throws IOException {
      state = LedgerJson.treeReader().readTree(in);
    }

    @Override
    public void patch(JsonParser in) throws IOException {
      patch = LedgerJson.treeReader().readTree(in);
    }
  }
}
