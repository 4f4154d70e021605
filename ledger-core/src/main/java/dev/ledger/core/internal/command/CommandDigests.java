package dev.ledger.core.internal.command;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * The digest that tells a retried command from a different one under the same command id: its
 * <em>intent</em>, what the caller asked to record. SHA-256 hex of the canonical JSON (keys
 * sorted, compact) of the drafts in order:
 * <pre>
 * {"events":[{"operationId":"op-1","payload":{...},"type":"task.done"}, ...]}
 * </pre>
 * {@code operationId} is {@code null} when the draft has none. Each payload is taken as the
 * journal gives it back: its canonical JSON read again, so that a number that reads back in
 * another form (a decimal with more digits than a double holds) digests the same before and
 * after it was recorded. The command id is the key, not content; the new state, the expected
 * revision and the time are not part of it, so a command retried on a state re-derived after
 * another writer's commit is the same command.
 */
public final class CommandDigests {
  private CommandDigests() {}

  /** The intent digest of a commit's drafts. */
  public static String intent(List<EventDraft> drafts) {
    ObjectNode content = JsonNodeFactory.instance.objectNode();
    ArrayNode events = content.putArray("events");
    for (EventDraft draft : drafts) {
      add(events, draft.type(), asRecorded(draft.payload()), draft.operationId());
    }
    return LedgerJson.sha256Hex(LedgerJson.canonical(content));
  }

  /**
   * The intent digest of the events a commit recorded, read back from the journal: equal to
   * {@link #intent} of the drafts that recorded them.
   */
  public static String intentOfRecorded(List<Event> recorded) {
    ObjectNode content = JsonNodeFactory.instance.objectNode();
    ArrayNode events = content.putArray("events");
    for (Event event : recorded) {
      add(events, event.type(), event.payload(), event.operationId());
    }
    return LedgerJson.sha256Hex(LedgerJson.canonical(content));
  }

  private static JsonNode asRecorded(JsonNode payload) {
    try {
      return LedgerJson.parse(LedgerJson.canonical(payload));
    } catch (IOException e) {
      throw new UncheckedIOException("canonical JSON did not parse back", e);
    }
  }

  private static void add(ArrayNode events, String type, JsonNode payload, String operationId) {
    ObjectNode item = events.addObject();
    item.put("type", type);
    item.set("payload", payload);
    item.put("operationId", operationId);
  }
}
