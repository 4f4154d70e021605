package dev.ledger.examples;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventPage;
import dev.ledger.core.Ledger;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Offline replay of a store directory, which may be a copy: opens it read-only (nothing in it
 * is created, locked or changed), pages through each ledger's journal with cursors, folds the
 * events into a {@link TaskTimeline} per ledger and writes every event as one line of
 * canonical JSON (JSON Lines, keys sorted) to {@code jsonl}.
 */
public final class JournalReplay {
  private static final int PAGE = 100;

  private JournalReplay() {}

  /**
   * The result of a replay.
   *
   * @param timelines the timeline of each ledger, by root id
   * @param events events read
   * @param pages pages read
   */
  public record Result(Map<String, TaskTimeline> timelines, long events, long pages) {}

  /**
   * Replays every ledger in {@code dir}.
   *
   * @param jsonl where the JSON Lines go (not closed)
   * @throws dev.ledger.core.LedgerIOException if {@code dir} holds no store
   */
  public static Result replay(Path dir, OutputStream jsonl) throws IOException {
    Map<String, TaskTimeline> timelines = new LinkedHashMap<>();
    long events = 0;
    long pages = 0;
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(dir)) {
      for (String root : store.rootIds()) {
        Ledger<JsonNode> ledger = store.ledger(root, JsonNode.class);
        TaskTimeline timeline = new TaskTimeline();
        Cursor cursor = Cursor.START;
        EventPage page;
        do {
          page = ledger.events(cursor, PAGE);
          pages++;
          for (Event event : page.events()) {
            timeline.accept(event);
            jsonl.write(LedgerJson.canonical(LedgerJson.tree(event)));
            jsonl.write('\n');
            events++;
          }
          cursor = page.nextCursor();
        } while (page.hasMore());
        timelines.put(root, timeline);
      }
    }
    jsonl.flush();
    return new Result(timelines, events, pages);
  }
}
