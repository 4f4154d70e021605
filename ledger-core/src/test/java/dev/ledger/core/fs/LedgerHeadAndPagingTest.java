package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.EventDraft;
import dev.ledger.core.LedgerHead;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.RootIdCursor;
import dev.ledger.core.RootIdPage;
import dev.ledger.testing.base.DirectorySnapshot;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** File-store specifics of exists, head and paged root ids. */
class LedgerHeadAndPagingTest {
  @TempDir
  Path dir;

  private static JsonNode state(int n) {
    return JsonNodeFactory.instance.objectNode().put("n", n);
  }

  @Test
  void readOnlyStoreAnswersExistsHeadAndPagesAndWritesNothing() throws IOException {
    Path base = dir.resolve("store");
    LedgerHead written;
    try (FileLedgerStore store = FileLedgerStore.open(base,
        LedgerOptions.defaults().withCheckpointInterval(2))) {
      for (String id : List.of("a", "b", "c")) {
        var ledger = store.ledger(id, JsonNode.class);
        for (int i = 0; i < 5; i++) {
          ledger.commit(i, state(i), EventDraft.of("e", Map.of()));
        }
      }
      written = store.head("b").orElseThrow();
    }
    assertThat(written.revision()).isEqualTo(5);
    assertThat(written.events()).isEqualTo(5);
    DirectorySnapshot before = DirectorySnapshot.of(base, DirectorySnapshot.Options.of(
        DirectorySnapshot.Aspect.CONTENT, DirectorySnapshot.Aspect.FILE_TIMES));
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(base)) {
      assertThat(store.exists("b")).isTrue();
      assertThat(store.exists("d")).isFalse();
      assertThat(store.head("b")).contains(written);
      assertThat(store.head("d")).isEmpty();
      RootIdPage page = store.rootIds(RootIdCursor.START, 2);
      assertThat(page.rootIds()).containsExactly("a", "b");
      assertThat(store.rootIds(page.nextCursor(), 2).rootIds()).containsExactly("c");
    }
    assertThat(before.diff(DirectorySnapshot.of(base, DirectorySnapshot.Options.of(
        DirectorySnapshot.Aspect.CONTENT, DirectorySnapshot.Aspect.FILE_TIMES)))).isEmpty();
  }

  @Test
  void pagesPassOverLedgerDirectoriesWithoutACommit() throws IOException {
    Path base = dir.resolve("store");
    List<String> committed = new ArrayList<>();
    try (FileLedgerStore store = FileLedgerStore.open(base)) {
      for (int i = 0; i < 30; i++) {
        String id = String.format("r%02d", i);
        if (i % 3 == 0 || (i >= 10 && i < 20)) {
          // A directory left by a crash before the first append: a run of them makes one
          // listing come up short, so the page lists again after it.
          Files.createDirectories(base.resolve("ledgers").resolve(id).resolve("journal"));
        } else {
          store.ledger(id, JsonNode.class).commit(0, state(i));
          committed.add(id);
        }
      }
      assertThat(store.rootIds()).isEqualTo(committed);
      List<String> seen = new ArrayList<>();
      RootIdPage page = store.rootIds(RootIdCursor.START, 4);
      seen.addAll(page.rootIds());
      while (page.hasMore()) {
        assertThat(page.rootIds()).hasSize(4);
        page = store.rootIds(page.nextCursor(), 4);
        seen.addAll(page.rootIds());
      }
      assertThat(seen).isEqualTo(committed);
      assertThat(store.exists("r00")).isFalse();
      assertThat(store.head("r10")).isEmpty();
    }
  }

  @Test
  void headReadsTheCheckpointHeaderButStillRefusesADamagedCheckpoint() throws IOException {
    Path base = dir.resolve("store");
    try (FileLedgerStore store = FileLedgerStore.open(base,
        LedgerOptions.defaults().withCheckpointInterval(1))) {
      store.ledger("run-1", JsonNode.class).commit(0, state(1));
    }
    Path checkpoint = base.resolve("ledgers").resolve("run-1").resolve("state.json");
    String text = Files.readString(checkpoint);
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(base)) {
      LedgerHead head = store.head("run-1").orElseThrow();
      assertThat(head.revision()).isEqualTo(1);
      assertThat(head.events()).isZero();
      assertThat(head.lastCommitAt()).isBefore(Instant.now().plusSeconds(1));
    }
    // Broken JSON inside the state: found even though the state builds no tree.
    Files.writeString(checkpoint, text.replace("\"n\" : 1", "\"n\" : ]"),
        StandardCharsets.UTF_8);
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(base)) {
      assertThatThrownBy(() -> store.head("run-1")).isInstanceOf(CorruptLedgerException.class)
          .hasMessageContaining("state.json");
    }
    // A duplicate header field is refused as the full read refuses it.
    Files.writeString(checkpoint, text.replace("\"revision\" : 1,",
        "\"revision\" : 1,\n  \"revision\" : 2,"), StandardCharsets.UTF_8);
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(base)) {
      assertThatThrownBy(() -> store.head("run-1")).isInstanceOf(CorruptLedgerException.class)
          .hasMessageContaining("state.json");
    }
  }
}
