package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.core.CommitResult;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.spi.CommitRequest;
import dev.ledger.testing.fault.FaultyFileSystem;
import dev.ledger.testing.fault.Op;
import dev.ledger.testing.fault.Persistence;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How checkpoints write the command index when more than one writer works on a ledger, and
 * after a crash.
 */
class CommandIndexTest {
  private static final String ROOT = "commands";
  private static final FileTime LONG_AGO = FileTime.from(Instant.parse("2001-01-01T00:00:00Z"));

  @TempDir
  Path dir;

  private static LedgerOptions options() {
    return LedgerOptions.defaults().withCheckpointInterval(5);
  }

  private static CommitResult commit(Ledger<Counter> ledger, int revision) {
    return ledger.commit(revision - 1, new Counter(revision),
        EventDraft.of("counted", Map.of("n", revision)).withCommandId("command-" + revision));
  }

  private Path entry(int revision) {
    return new CommandIndex(dir.resolve("store/ledgers").resolve(ROOT).resolve("commands"))
        .path(CommitRequest.publicCommandId("command-" + revision));
  }

  /**
   * A writer whose view predates another writer's checkpoint must not truncate and rewrite
   * the entries that checkpoint covers: killed between the two steps it would leave an empty
   * entry that no recovery rebuilds, and the command's retry would fail as corrupt. (Shown
   * with a SIGKILL injected right after the truncating open, before this fix.)
   */
  @Test
  void staleWritersCheckpointLeavesEntriesAnotherCheckpointCoversUntouched() throws IOException {
    Map<Path, byte[]> covered = new LinkedHashMap<>();
    try (FileLedgerStore stale = FileLedgerStore.open(dir.resolve("store"), options());
        FileLedgerStore busy = FileLedgerStore.open(dir.resolve("store"), options())) {
      Ledger<Counter> staleLedger = stale.ledger(ROOT, Counter.class);
      Ledger<Counter> busyLedger = busy.ledger(ROOT, Counter.class);
      commit(staleLedger, 1);
      for (int revision = 2; revision <= 5; revision++) {
        commit(busyLedger, revision);
      }
      // The busy writer's checkpoint at revision 5 wrote entries 1..5 and covers them.
      assertThat(Checkpoint.read(dir.resolve("store/ledgers").resolve(ROOT)
          .resolve("state.json"), ROOT, 1 << 20).revision()).isEqualTo(5);
      for (int revision = 1; revision <= 5; revision++) {
        Path file = entry(revision);
        covered.put(file, Files.readAllBytes(file));
        Files.setLastModifiedTime(file, LONG_AGO);
      }

      // The stale writer catches up over 2..5 and checkpoints at 6.
      commit(staleLedger, 6);
      assertThat(entry(6)).exists();
      for (Map.Entry<Path, byte[]> file : covered.entrySet()) {
        assertThat(Files.getLastModifiedTime(file.getKey()))
            .as("modification time of covered entry %s", file.getKey().getFileName())
            .isEqualTo(LONG_AGO);
        assertThat(Files.readAllBytes(file.getKey())).isEqualTo(file.getValue());
      }
    }
    assertRetriesReplay(6);
  }

  /** An entry left partial by a crash before any checkpoint covered it is written whole. */
  @Test
  void entryLeftPartialByACrashIsRewrittenAtTheNextCheckpoint() throws IOException {
    try (FileLedgerStore store = FileLedgerStore.open(dir.resolve("store"), options())) {
      Ledger<Counter> ledger = store.ledger(ROOT, Counter.class);
      for (int revision = 1; revision <= 4; revision++) {
        commit(ledger, revision);
      }
    }
    // Closing checkpointed 1..4. What a crash in the middle of that checkpoint leaves instead:
    // half of entry 3 written, state.json not yet (here: never) written.
    byte[] whole = Files.readAllBytes(entry(3));
    Files.write(entry(3), Arrays.copyOf(whole, whole.length / 2));
    Files.delete(dir.resolve("store/ledgers").resolve(ROOT).resolve("state.json"));

    try (FileLedgerStore store = FileLedgerStore.open(dir.resolve("store"), options())) {
      commit(store.ledger(ROOT, Counter.class), 5);
    }
    assertThat(Files.readAllBytes(entry(3))).isEqualTo(whole);
    assertRetriesReplay(5);
  }

  private void assertRetriesReplay(int last) {
    try (FileLedgerStore store = FileLedgerStore.open(dir.resolve("store"), options())) {
      Ledger<Counter> ledger = store.ledger(ROOT, Counter.class);
      for (int revision = 1; revision <= last; revision++) {
        CommitResult retry = commit(ledger, revision);
        assertThat(retry.replayed()).as("retry of revision %s replayed", revision).isTrue();
        assertThat(retry.revision()).isEqualTo(revision);
      }
    }
  }

  /**
   * A checkpoint's entry is whole or absent: an I/O error after the entry's file was created
   * (here, its write fails) leaves no entry, and the command is still found through the
   * journal. Written in place, the file stayed behind empty and the retry failed as a corrupt
   * index (as a SIGKILL between the create and the write left it).
   */
  @Test
  void anEntryCutOffBeforeItsBytesLeavesNoEntryAndTheCommandIsStillFound() throws IOException {
    Path real = dir.resolve("real");
    Files.createDirectories(real);
    FaultyFileSystem fs = FaultyFileSystem.over(real);
    Path base = fs.root().resolve("store");
    try (FileLedgerStore store = FileLedgerStore.open(base, options())) {
      Ledger<Counter> ledger = store.ledger(ROOT, Counter.class);
      for (int revision = 1; revision <= 4; revision++) {
        commit(ledger, revision);
      }
    }
    CommandIndex index = new CommandIndex(base.resolve("ledgers").resolve(ROOT)
        .resolve("commands"));
    String id = CommitRequest.publicCommandId("command-5");
    fs.failAt(Op.WRITE, 1, Persistence.TRANSIENT);
    assertThatThrownBy(() -> index.write(Map.of(id, new CommandIndex.Entry("d", 5, 1, 0)),
        true)).isInstanceOf(IOException.class);
    assertThat(fs.injected()).isEqualTo(1);
    assertThat(index.path(id)).doesNotExist();
    try (Stream<Path> files = Files.list(index.path(id).getParent())) {
      assertThat(files).as("no file in the entry's directory").isEmpty();
    }
    assertThat(base.resolve("ledgers").resolve(ROOT).resolve("commands/.entry.tmp"))
        .as("the temp file, removed when the write failed").doesNotExist();
    assertThat(index.find(id)).isNull();
  }

  /** The temp file a writer killed mid-entry left is removed by the next writer to take over. */
  @Test
  void theNextWriterRemovesTheTempFileOfAKilledOne() throws IOException {
    try (FileLedgerStore store = FileLedgerStore.open(dir.resolve("store"), options())) {
      commit(store.ledger(ROOT, Counter.class), 1);
    }
    Path temp = dir.resolve("store/ledgers").resolve(ROOT).resolve("commands/.entry.tmp");
    Files.createDirectories(temp.getParent());
    Files.write(temp, new byte[] {'{'});
    try (FileLedgerStore store = FileLedgerStore.open(dir.resolve("store"), options())) {
      commit(store.ledger(ROOT, Counter.class), 2);
      assertThat(temp).doesNotExist();
    }
  }
}
