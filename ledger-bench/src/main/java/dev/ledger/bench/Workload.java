package dev.ledger.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ledger.core.EventDraft;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The logical commit every competitor performs: check the revision, replace a ~2 KiB state,
 * append one ~200-byte event, durable before returning.
 */
final class Workload {
  static final ObjectMapper JSON = LedgerJson.mapper();
  private static final String BODY = filler(2000);
  private static final String DETAIL = filler(140);

  private Workload() {}

  /** The ~2 KiB state: a counter, the last task and a constant body. */
  record BenchState(long counter, String lastTask, String body) {}

  static BenchState state(long counter) {
    return new BenchState(counter, "task-" + counter, BODY);
  }

  static Map<String, Object> eventPayload(long counter) {
    return Map.of("task", "task-" + counter, "attempt", counter % 7, "detail", DETAIL);
  }

  static EventDraft event(long counter) {
    return EventDraft.of("task.done", eventPayload(counter));
  }

  static byte[] stateJson(long counter) {
    return toJson(state(counter));
  }

  static byte[] eventJson(long counter) {
    return toJson(Map.of("type", "task.done", "payload", eventPayload(counter)));
  }

  static byte[] toJson(Object value) {
    try {
      return JSON.writeValueAsBytes(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String filler(int length) {
    StringBuilder b = new StringBuilder(length);
    String words = "lorem ipsum dolor sit amet consectetur adipiscing elit ";
    while (b.length() < length) {
      b.append(words);
    }
    return b.substring(0, length);
  }

  static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }
}
