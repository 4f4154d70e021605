package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.Versioned;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.LongStream;
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

  /**
   * Asserts that a ledger created at revision 1 (count 0, no event) and then incremented
   * {@code total} times by {@link #incremented} updates holds every increment exactly once:
   * the count, one revision per increment, events 1..total each stamped with its own
   * revision, and no writer/step recorded twice.
   */
  static void assertLandedExactlyOnce(Ledger<Counter> ledger, int total) {
    Versioned<Counter> current = ledger.load();
    assertThat(current.state().count()).isEqualTo(total);
    assertThat(current.revision()).isEqualTo(total + 1);
    List<Event> events = journal(ledger);
    assertThat(events).extracting(Event::sequence)
        .containsExactlyElementsOf(LongStream.rangeClosed(1, total).boxed().toList());
    assertThat(events).extracting(Event::revision)
        .containsExactlyElementsOf(LongStream.rangeClosed(2, total + 1).boxed().toList());
    Set<String> steps = new HashSet<>();
    for (Event event : events) {
      assertThat(steps.add(step(event))).as("%s recorded twice", step(event)).isTrue();
    }
    assertThat(steps).hasSize(total);
  }
}
