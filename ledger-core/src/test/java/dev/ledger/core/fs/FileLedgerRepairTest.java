package dev.ledger.core.fs;

import static dev.ledger.core.fs.VerifyFixture.OPTIONS;
import static dev.ledger.core.fs.VerifyFixture.commit;
import static dev.ledger.core.fs.VerifyFixture.ledgerDir;
import static dev.ledger.core.fs.VerifyFixture.lineStarts;
import static dev.ledger.core.fs.VerifyFixture.segment;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.CommitResult;
import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.ReadOnlyStoreException;
import dev.ledger.core.RepairResult;
import dev.ledger.core.UnrepairableLedgerException;
import dev.ledger.core.VerifyReport;
import dev.ledger.core.fs.VerifyFixture.Counter;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link FileLedgerStore#repair} rebuilds from an intact journal, and only from one. */
class FileLedgerRepairTest {
  private static final int COMMITS = 12;

  @TempDir
  Path dir;

  private Path stateFile() {
    return ledgerDir(dir, "root-1").resolve("state.json");
  }

  private RepairResult repair() {
    try (FileLedgerStore store = FileLedgerStore.open(dir, OPTIONS)) {
      return store.repair("root-1");
    }
  }

  /** After a repair: clean, loads at the last revision, every command replays. */
  private void assertRepaired() {
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(dir)) {
      VerifyReport report = store.verify();
      assertThat(report.damage()).isEmpty();
    }
    try (FileLedgerStore store = FileLedgerStore.open(dir, OPTIONS)) {
      Ledger<Counter> ledger = store.ledger("root-1", Counter.class);
      assertThat(ledger.load().revision()).isEqualTo(COMMITS);
      assertThat(ledger.load().state()).isEqualTo(new Counter(COMMITS, "label"));
      for (int i = 1; i <= COMMITS; i++) {
        String id = "cmd-root-1-" + i;
        assertThat(ledger.command(id)).as(id).get().extracting(CommitResult::revision)
            .isEqualTo((long) i);
        CommitResult again = ledger.commit(i - 1, new Counter(i, "label"),
            EventDraft.of("inc", Map.of("to", i)).withCommandId(id));
        assertThat(again.replayed()).as(id).isTrue();
        assertThat(again.revision()).isEqualTo(i);
      }
    }
  }

  @Test
  void aDeletedCheckpointIsRebuilt() throws IOException {
    commit(dir, OPTIONS, "root-1", COMMITS);
    byte[] original = Files.readAllBytes(stateFile());
    Files.delete(stateFile());
    RepairResult result = repair();
    assertThat(result.checkpointRewritten()).isTrue();
    assertThat(result.revision()).isEqualTo(COMMITS);
    assertThat(Files.readAllBytes(stateFile())).isEqualTo(original);
    assertRepaired();
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(dir)) {
      assertThat(store.verify().findings()).isEmpty();
    }
  }

  @Test
  void aCorruptCheckpointIsRebuilt() throws IOException {
    commit(dir, OPTIONS, "root-1", COMMITS);
    byte[] original = Files.readAllBytes(stateFile());
    Files.writeString(stateFile(), "{\"format\": 2, \"revi");
    try (FileLedgerStore store = FileLedgerStore.open(dir, OPTIONS)) {
      assertThatThrownBy(() -> store.ledger("root-1", Counter.class).load())
          .isInstanceOf(CorruptLedgerException.class);
      assertThat(store.verify().damage()).extracting(VerifyReport.Finding::kind)
          .containsExactly(VerifyReport.Kind.BAD_CHECKPOINT);
    }
    assertThat(repair().checkpointRewritten()).isTrue();
    assertThat(Files.readAllBytes(stateFile())).isEqualTo(original);
    assertRepaired();
  }

  @Test
  void commandIndexEntriesAreRebuilt() throws IOException {
    commit(dir, OPTIONS, "root-1", COMMITS);
    List<Path> entries = VerifyFixture.commandEntries(dir, "root-1");
    ObjectNode entry = (ObjectNode) LedgerJson.parse(Files.readAllBytes(entries.get(0)));
    entry.put("revision", entry.get("revision").longValue() + 1);
    Files.write(entries.get(0), LedgerJson.canonical(entry));
    Files.writeString(entries.get(1), "");
    Files.delete(entries.get(2));
    Path stray = entries.get(3).resolveSibling("0".repeat(62) + ".json");
    Files.copy(entries.get(3), stray);
    RepairResult result = repair();
    assertThat(result.commandEntriesWritten()).isEqualTo(3);
    assertThat(result.commandEntriesRemoved()).isEqualTo(1);
    assertThat(result.checkpointRewritten()).isFalse();
    assertThat(stray).doesNotExist();
    assertRepaired();
  }

  @Test
  void anIntactLedgerIsLeftAlone() {
    commit(dir, OPTIONS, "root-1", COMMITS);
    Map<String, String> before = VerifyFixture.tree(dir.resolve("ledgers").resolve("root-1")
        .resolve("commands"));
    RepairResult result = repair();
    assertThat(result.changed()).isFalse();
    assertThat(VerifyFixture.tree(dir.resolve("ledgers").resolve("root-1")
        .resolve("commands"))).isEqualTo(before);
    assertRepaired();
  }

  @Test
  void aJournalDamagedBeforeItsTailIsRefusedAndNothingChanges() throws IOException {
    commit(dir, OPTIONS, "root-1", COMMITS);
    Path segment = segment(dir, "root-1", 1);
    byte[] bytes = Files.readAllBytes(segment);
    long at = lineStarts(segment).get(COMMITS / 2);
    bytes[(int) at + 30] ^= 0x01;
    Files.write(segment, bytes);
    Files.delete(stateFile());
    Files.writeString(VerifyFixture.commandEntries(dir, "root-1").get(0), "garbage");
    Map<String, String> before = VerifyFixture.tree(dir);
    try (FileLedgerStore store = FileLedgerStore.open(dir, OPTIONS)) {
      assertThatThrownBy(() -> store.repair("root-1"))
          .isInstanceOfSatisfying(UnrepairableLedgerException.class, e -> {
            assertThat(e.path()).isEqualTo(segment);
            assertThat(e.offset()).isEqualTo(at);
            assertThat(e.rootId()).isEqualTo("root-1");
          });
    }
    assertThat(VerifyFixture.tree(dir)).isEqualTo(before);
  }

  @Test
  void aTornTailDoesNotStopARepair() throws IOException {
    commit(dir, OPTIONS, "root-1", COMMITS);
    Files.writeString(segment(dir, "root-1", 1), "{\"crc32c\":\"00",
        java.nio.file.StandardOpenOption.APPEND);
    Files.delete(stateFile());
    assertThat(repair().revision()).isEqualTo(COMMITS);
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(dir)) {
      assertThat(store.verify().clean()).isTrue();
    }
    assertRepaired();
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(dir)) {
      assertThat(store.verify().findings()).isEmpty(); // a writer has cut the tail
    }
  }

  @Test
  void aReadOnlyStoreRefusesToRepair() {
    commit(dir, OPTIONS, "root-1", 2);
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(dir)) {
      assertThatThrownBy(() -> store.repair("root-1"))
          .isInstanceOf(ReadOnlyStoreException.class);
    }
  }
}
