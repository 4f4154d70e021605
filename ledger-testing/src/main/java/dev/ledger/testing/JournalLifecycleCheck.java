package dev.ledger.testing;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventPage;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.lifecycle.Lifecycle;
import dev.ledger.core.lifecycle.StatusChanged;
import dev.ledger.registry.RunEvent;
import dev.ledger.registry.RunStatus;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Replays a run registry partition's journal (its collections change feed) and checks that it
 * never broke the run lifecycle: each run's events start with {@value RunEvent#RUN_ALLOCATED}
 * at sequence 1 into {@code starting}; each {@value StatusChanged#TYPE} event leaves the
 * status the previous one entered, is allowed by {@link RunStatus#lifecycle()}, is not a
 * no-op, and has the next sequence; the run document is written in the same commit with that
 * status and a revision equal to the sequence; and at the end every run's stored status and
 * revision are those its events replay to.
 */
public final class JournalLifecycleCheck {
  private JournalLifecycleCheck() {}

  /** What the replay knows of one run. */
  private static final class Replayed {
    String eventStatus;
    long sequence;
    String docStatus;
    long docRevision;
  }

  /**
   * Replays the journal of {@code partition} on {@code store}; does nothing when the
   * partition was never written.
   *
   * @param store the store
   * @param partition the registry's partition
   * @return how many status changes were checked
   * @throws AssertionError naming the event that breaks the lifecycle
   */
  public static int check(LedgerStore store, String partition) {
    if (!store.exists(partition)) {
      return 0;
    }
    Lifecycle<RunStatus> lifecycle = RunStatus.lifecycle();
    Ledger<JsonNode> ledger = store.ledger(partition, JsonNode.class);
    Map<String, Replayed> runs = new HashMap<>();
    int checked = 0;
    long commit = 0;
    java.util.Set<String> touched = new java.util.HashSet<>();
    Cursor cursor = Cursor.START;
    while (true) {
      EventPage page = ledger.events(cursor, 500);
      for (Event event : page.events()) {
        if (event.revision() != commit) {
          agree(runs, touched, commit);
          commit = event.revision();
        }
        JsonNode payload = event.payload();
        String collection = payload.path("collection").asText();
        if (event.type().equals("collection.insert") && collection.equals("runEvents")) {
          JsonNode doc = payload.get("document");
          String runId = doc.get("runId").asText();
          long sequence = doc.get("sequence").asLong();
          String type = doc.get("type").asText();
          String to = doc.get("to").asText();
          Replayed run = runs.computeIfAbsent(runId, k -> new Replayed());
          touched.add(runId);
          String where = "run " + runId + " event " + sequence + " (journal sequence "
              + event.sequence() + ")";
          if (type.equals(RunEvent.RUN_ALLOCATED)) {
            expect(run.sequence == 0 && sequence == 1 && to.equals("starting"),
                where + ": run_allocated must come first, at 1, into starting");
          } else {
            expect(type.equals(StatusChanged.TYPE), where + ": unknown type " + type);
            String from = doc.path("from").asText(null);
            expect(Objects.equals(from, run.eventStatus),
                where + ": leaves " + from + " but the run was " + run.eventStatus);
            expect(sequence == run.sequence + 1,
                where + ": sequence follows " + run.sequence);
            RunStatus fromState = lifecycle.state(from);
            RunStatus toState = lifecycle.state(to);
            expect(!fromState.equals(toState) && lifecycle.isAllowed(fromState, toState),
                where + ": " + from + " -> " + to + " is not allowed by " + lifecycle);
            checked++;
          }
          run.eventStatus = to;
          run.sequence = sequence;
        } else if (collection.equals("runs")) {
          String runId = payload.path("key").path(0).asText();
          Replayed run = runs.computeIfAbsent(runId, k -> new Replayed());
          touched.add(runId);
          JsonNode fields = event.type().equals("collection.insert") ? payload.get("document")
              : payload.get("patch");
          if (fields != null && fields.has("status")) {
            run.docStatus = fields.get("status").asText();
          }
          if (fields != null && fields.has("revision")) {
            run.docRevision = fields.get("revision").asLong();
          }
        }
      }
      if (!page.hasMore()) {
        agree(runs, touched, commit);
        return checked;
      }
      cursor = page.nextCursor();
    }
  }

  /** After each commit, the run documents it wrote agree with the events it recorded. */
  private static void agree(Map<String, Replayed> runs, java.util.Set<String> touched,
      long commit) {
    for (String runId : touched) {
      Replayed run = runs.get(runId);
      expect(Objects.equals(run.docStatus, run.eventStatus) && run.docRevision == run.sequence,
          "after commit " + commit + ", run " + runId + " is stored as " + run.docStatus
          + " at revision " + run.docRevision + " but its events replay to " + run.eventStatus
          + " at " + run.sequence);
    }
    touched.clear();
  }

  private static void expect(boolean condition, String message) {
    if (!condition) {
      throw new AssertionError("Registry journal breaks the run lifecycle: " + message);
    }
  }
}
