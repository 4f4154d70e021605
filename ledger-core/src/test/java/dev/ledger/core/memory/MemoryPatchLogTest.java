package dev.ledger.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.CommandConflictException;
import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.StoreClosedException;
import dev.ledger.core.spi.LoggedCommit;
import dev.ledger.core.spi.PatchLog;
import dev.ledger.core.spi.PatchRequest;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class MemoryPatchLogTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final InMemoryLedgerStore store = InMemoryLedgerStore.create();

  private static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static PatchRequest patch(long expected, String patch, EventDraft... events) {
    return new PatchRequest(expected, json(patch), 0, List.of(events), null, null);
  }

  @Test
  void ledgerLoadsTheStateFoldedFromPatches() {
    PatchLog log = store.patchLog("p-1");
    log.commitPatch(patch(0, "{\"a\":{\"x\":1,\"y\":2},\"b\":[1]}"));
    log.commitPatch(patch(1, "{\"a\":{\"y\":null,\"z\":3}}"));
    Ledger<JsonNode> ledger = store.ledger("p-1", JsonNode.class);
    assertThat(ledger.load().state()).isEqualTo(json("{\"a\":{\"x\":1,\"z\":3},\"b\":[1]}"));
    assertThat(ledger.load().revision()).isEqualTo(2);
    // A Ledger commit on top diffs against the folded state; the log then reads it back.
    ledger.commit(2, json("{\"a\":{\"x\":1,\"z\":4},\"b\":[1]}"), List.of());
    log.commitPatch(patch(3, "{\"c\":true}"));
    assertThat(ledger.load().state()).isEqualTo(json("{\"a\":{\"x\":1,\"z\":4},\"b\":[1],"
        + "\"c\":true}"));
    try (Stream<LoggedCommit> commits = log.commitsAfter(2)) {
      assertThat(commits.map(LoggedCommit::revision).toList()).containsExactly(3L, 4L);
    }
  }

  @Test
  void foldedStateHandedOutIsNotMutatedByLaterPatches() {
    PatchLog log = store.patchLog("p-1");
    log.commitPatch(patch(0, "{\"a\":1}"));
    Ledger<JsonNode> ledger = store.ledger("p-1", JsonNode.class);
    JsonNode first = ledger.load().state();
    log.commitPatch(patch(1, "{\"a\":2}"));
    assertThat(ledger.load().state()).isEqualTo(json("{\"a\":2}"));
    assertThat(first).isEqualTo(json("{\"a\":1}"));
  }

  @Test
  void commitsAfterReadsOnlyNewerRecordsWithTheirEvents() {
    PatchLog log = store.patchLog("p-1");
    log.commitPatch(patch(0, "{\"a\":1}", EventDraft.of("set", Map.of("a", 1))));
    log.commitPatch(patch(1, "{\"a\":2}", EventDraft.of("set", Map.of("a", 2))));
    try (Stream<LoggedCommit> commits = log.commitsAfter(1)) {
      List<LoggedCommit> list = commits.toList();
      assertThat(list).hasSize(1);
      assertThat(list.get(0).patch()).isEqualTo(json("{\"a\":2}"));
      assertThat(list.get(0).state()).isNull();
      assertThat(list.get(0).events()).singleElement()
          .satisfies(e -> assertThat(e.sequence()).isEqualTo(2));
    }
    try (Stream<LoggedCommit> commits = log.commitsAfter(2)) {
      assertThat(commits).isEmpty();
    }
    assertThat(store.ledger("p-1", JsonNode.class).events(Cursor.START, 10).events())
        .hasSize(2);
  }

  @Test
  void staleRevisionIsRefusedAndWritesNothing() {
    PatchLog log = store.patchLog("p-1");
    log.commitPatch(patch(0, "{\"a\":1}"));
    assertThatThrownBy(() -> log.commitPatch(patch(0, "{\"a\":2}")))
        .isInstanceOf(RevisionConflictException.class);
    assertThat(store.head("p-1").orElseThrow().revision()).isEqualTo(1);
  }

  @Test
  void commandIsReplayedWithSameDigestAndRefusedWithAnother() {
    PatchLog log = store.patchLog("p-1");
    PatchRequest first = new PatchRequest(0, json("{\"a\":1}"), 0, List.of(), "cmd_x", "d1");
    CommitResult done = log.commitPatch(first);
    CommitResult again = log.commitPatch(new PatchRequest(1, json("{\"a\":1}"), 0, List.of(),
        "cmd_x", "d1"));
    assertThat(again.replayed()).isTrue();
    assertThat(again.revision()).isEqualTo(done.revision());
    assertThatThrownBy(() -> log.commitPatch(new PatchRequest(1, json("{\"a\":1}"), 0,
        List.of(), "cmd_x", "d2"))).isInstanceOf(CommandConflictException.class);
    assertThat(store.head("p-1").orElseThrow().revision()).isEqualTo(1);
  }

  @Test
  void batchCommitsConsecutiveRevisionsOrNothing() {
    PatchLog log = store.patchLog("p-1");
    List<CommitResult> results = log.commitPatches(List.of(patch(0, "{\"a\":1}",
        EventDraft.of("e", Map.of())), patch(1, "{\"b\":1}", EventDraft.of("e", Map.of()))));
    assertThat(results).extracting(CommitResult::revision).containsExactly(1L, 2L);
    assertThat(store.ledger("p-1", JsonNode.class).load().state())
        .isEqualTo(json("{\"a\":1,\"b\":1}"));
    assertThatThrownBy(() -> log.commitPatches(List.of(patch(1, "{\"c\":1}"),
        patch(2, "{\"c\":2}")))).isInstanceOf(RevisionConflictException.class);
    assertThatThrownBy(() -> log.commitPatches(List.of(patch(2, "{\"c\":1}"),
        patch(4, "{\"c\":2}")))).isInstanceOf(IllegalArgumentException.class);
    log.commitPatch(new PatchRequest(2, json("{\"c\":1}"), 0, List.of(), "cmd_y", "d"));
    assertThatThrownBy(() -> log.commitPatches(List.of(new PatchRequest(3, json("{}"), 0,
        List.of(), "cmd_y", "d")))).isInstanceOf(CommandConflictException.class);
    assertThat(store.head("p-1").orElseThrow().revision()).isEqualTo(3);
  }

  @Test
  void checkpointResetsJournalBytesAndIsRefusedWhenStale() {
    PatchLog log = store.patchLog("p-1");
    assertThat(log.checkpoint()).isEmpty();
    log.commitPatch(patch(0, "{\"a\":1}"));
    log.commitPatch(patch(1, "{\"a\":2}"));
    long before = log.journalBytesSinceCheckpoint();
    assertThat(before).isPositive();
    assertThat(log.checkpoint(1, json("{\"a\":1}"), 0)).isFalse();
    ObjectNode state = (ObjectNode) json("{\"a\":2}");
    assertThat(log.checkpoint(2, state, 0)).isTrue();
    state.put("a", 99);
    assertThat(log.journalBytesSinceCheckpoint()).isZero();
    assertThat(log.checkpoint().orElseThrow().state()).isEqualTo(json("{\"a\":2}"));
    assertThat(log.checkpoint().orElseThrow().revision()).isEqualTo(2);
    log.commitPatch(patch(2, "{\"b\":1}"));
    assertThat(log.journalBytesSinceCheckpoint()).isPositive();
    assertThat(store.ledger("p-1", JsonNode.class).load().state())
        .isEqualTo(json("{\"a\":2,\"b\":1}"));
  }

  @Test
  void closedStoreRefusesPatchLogCalls() {
    PatchLog log = store.patchLog("p-1");
    store.close();
    assertThatThrownBy(() -> log.commitPatch(patch(0, "{}")))
        .isInstanceOf(StoreClosedException.class);
    assertThatThrownBy(() -> store.patchLog("p-2")).isInstanceOf(StoreClosedException.class);
  }
}
