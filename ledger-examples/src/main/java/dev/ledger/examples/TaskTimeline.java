package dev.ledger.examples;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.core.Event;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Folds a plan's events, in journal order, into one line per task: each attempt with the
 * states its operation went through and who ran it, then the task's final status. Knows only
 * the event types and payloads the examples write ({@code operation.<status>} and
 * {@code task.<status>} with a {@code task} field); other events are counted, not shown.
 * Not thread-safe.
 */
public final class TaskTimeline {
  private final Map<String, Map<Integer, List<String>>> attempts = new TreeMap<>();
  private final Map<String, String> finalStatus = new TreeMap<>();
  private long events;

  /** Adds the next event. */
  public void accept(Event event) {
    events++;
    JsonNode task = event.payload().get("task");
    if (task == null || !task.isTextual()) {
      return;
    }
    String type = event.type();
    if (type.startsWith("operation.")) {
      String status = type.substring("operation.".length());
      JsonNode worker = event.payload().get("worker");
      JsonNode from = event.payload().get("recoveredFrom");
      String step = status
          + (status.equals("running") && worker != null ? "(" + worker.asText() + ")" : "")
          + (from != null ? "[recovered]" : "");
      attempts.computeIfAbsent(task.asText(), k -> new TreeMap<>())
          .computeIfAbsent(event.payload().path("attempt").asInt(), k -> new ArrayList<>())
          .add(step);
    } else if (type.startsWith("task.")) {
      finalStatus.put(task.asText(), type.substring("task.".length()));
    }
  }

  /** Events folded so far. */
  public long events() {
    return events;
  }

  /** One line per task, in task id order. */
  public List<String> lines() {
    Map<String, String> byTask = new LinkedHashMap<>();
    for (String task : finalStatus.keySet()) {
      StringBuilder line = new StringBuilder(String.format("%-4s %-9s", task,
          finalStatus.get(task)));
      attempts.getOrDefault(task, Map.of()).forEach((n, steps) ->
          line.append(" | a").append(n).append(' ').append(String.join(" > ", steps)));
      byTask.put(task, line.toString());
    }
    return List.copyOf(byTask.values());
  }
}
