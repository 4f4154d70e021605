package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.ledger.core.Change;
import dev.ledger.core.CommandConflictException;
import dev.ledger.core.Cursor;
import dev.ledger.core.EventDraft;
import dev.ledger.core.InvalidCursorException;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LimitExceededException;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.testing.base.DirectorySnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Promise 10 (same calls, same clock: same bytes) and promise 8 (refusals change nothing). */
class DeterminismTest {
  @TempDir
  Path dir;

  record Task(String id, String status, int attempts, Map<String, String> labels) {}

  record Plan(String root, List<Task> tasks) {}

  /** A clock that advances one millisecond per reading, the same on every run. */
  private static Clock steppingClock() {
    return new Clock() {
      private long millis = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();

      @Override
      public ZoneId getZone() {
        return ZoneId.of("UTC");
      }

      @Override
      public Clock withZone(ZoneId zone) {
        return this;
      }

      @Override
      public synchronized Instant instant() {
        return Instant.ofEpochMilli(millis++);
      }
    };
  }

  private static void script(Path base) {
    script(base, builder -> { });
  }

  private static void script(Path base, Consumer<JsonMapper.Builder> mapper) {
    LedgerOptions options = LedgerOptions.defaults().withClock(steppingClock())
        .withCheckpointInterval(4).withSegmentBytes(4096).withMapper(mapper);
    try (FileLedgerStore store = FileLedgerStore.open(base, options)) {
      for (String root : List.of("run-1", "Run-2")) {
        Ledger<Plan> ledger = store.ledger(root, Plan.class);
        Plan plan = new Plan(root, List.of());
        ledger.commit(0, plan, EventDraft.of("plan.created", Map.of("root", root)));
        for (int i = 0; i < 30; i++) {
          List<Task> tasks = new java.util.ArrayList<>(plan.tasks());
          tasks.add(new Task("t" + i, i % 3 == 0 ? "failed" : "done", i % 4,
              Map.of("zeta", "z" + i, "alpha", "a" + i)));
          plan = new Plan(root, tasks);
          ledger.commit(i + 1, plan, EventDraft.of("task.finished", Map.of("task", "t" + i,
              "n", i)).withCommandId("cmd-" + i).withOperationId("op-" + (i % 5)));
        }
        ledger.update(p -> Change.to(new Plan(p.root(), p.tasks().subList(0, 10)),
            EventDraft.of("plan.trimmed", Map.of())));
      }
    }
  }

  /**
   * Every path under {@code base} with its kind, permissions and content; not times, which
   * differ between two runs.
   */
  private static DirectorySnapshot tree(Path base) throws IOException {
    return DirectorySnapshot.of(base, DirectorySnapshot.Options.of(
        DirectorySnapshot.Aspect.CONTENT, DirectorySnapshot.Aspect.PERMISSIONS));
  }

  @Test
  void sameScriptTwiceGivesIdenticalDirectoryTrees() throws IOException {
    script(dir.resolve("a"));
    script(dir.resolve("b"));
    DirectorySnapshot a = tree(dir.resolve("a"));
    assertThat(a.entries().keySet()).anyMatch(name -> name.contains("commands"))
        .anyMatch(name -> name.endsWith("state.json"))
        .anyMatch(name -> name.endsWith("00000000000000000001.jsonl"))
        .anyMatch(name -> name.contains("!run-2"));
    assertThat(a.diff(tree(dir.resolve("b")))).isEmpty();
  }

  @Test
  void theStoresMapperDoesNotChangeTheBytesOnDisk() throws IOException {
    script(dir.resolve("a"));
    script(dir.resolve("b"), builder -> builder
        .disable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
        .disable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
        .enable(SerializationFeature.INDENT_OUTPUT));
    assertThat(tree(dir.resolve("a")).diff(tree(dir.resolve("b")))).isEmpty();
  }

  @Test
  void refusedOperationsLeaveEveryFileUnchanged() throws IOException {
    Path base = dir.resolve("s");
    script(base);
    DirectorySnapshot before = tree(base);
    LedgerOptions options = LedgerOptions.defaults().withClock(steppingClock())
        .withLockTimeout(Duration.ofSeconds(5)).withLimits(4096, 128);
    try (FileLedgerStore store = FileLedgerStore.open(base, options)) {
      Ledger<Plan> ledger = store.ledger("run-1", Plan.class);
      Plan current = ledger.load().state();
      assertThatThrownBy(() -> ledger.commit(3, current))
          .isInstanceOf(RevisionConflictException.class);
      assertThatThrownBy(() -> ledger.commit(0, current))
          .isInstanceOf(RevisionConflictException.class);
      assertThatThrownBy(() -> ledger.commit(32, new Plan("x", List.of()),
          EventDraft.of("task.finished", Map.of("task", "t3", "n", 3)).withCommandId("cmd-3")))
          .isInstanceOf(CommandConflictException.class);
      assertThatThrownBy(() -> ledger.commit(32, current,
          EventDraft.of("big", Map.of("s", "x".repeat(500)))))
          .isInstanceOf(LimitExceededException.class);
      assertThatThrownBy(() -> ledger.events(Cursor.of("garbage"), 10))
          .isInstanceOf(InvalidCursorException.class);
      assertThatThrownBy(() -> store.ledger("../escape", Plan.class))
          .isInstanceOf(dev.ledger.core.InvalidIdentifierException.class);
    }
    assertThat(before.diff(tree(base))).isEmpty();
  }
}
