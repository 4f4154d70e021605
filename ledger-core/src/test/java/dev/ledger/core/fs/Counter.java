package dev.ledger.core.fs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The state the concurrency and crash tests drive: a counter that every update increments,
 * recording one {@code inc} event naming the writer and its step, so that a journal can be
 * checked for every update landing exactly once.
 *
 * @param count number of increments committed
 */
record Counter(long count) {
  static final String INCREMENT = "inc";

  Counter increment() {
    return new Counter(count + 1);
  }

  /** The event of step {@code step} of writer {@code writer}. */
  static EventDraft incremented(String writer, int step) {
    return EventDraft.of(INCREMENT, Map.of("writer", writer, "step", step));
  }

  /** The {@code writer/step} an increment event names. */
  static String step(Event event) {
    JsonNode payload = event.payload();
    return payload.get("writer").asText() + "/" + payload.get("step").asInt();
  }

  /** Every event of {@code ledger}, read from the start. */
  static List<Event> journal(Ledger<?> ledger) {
    try (Stream<Event> events = ledger.replay(Cursor.START)) {
      return events.toList();
    }
  }
}
