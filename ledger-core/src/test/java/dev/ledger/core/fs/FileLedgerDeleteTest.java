package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.core.Cursor;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerBusyException;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.LedgerNotFoundException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.ReadOnlyStoreException;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.VerifyReport;
import dev.ledger.core.fs.AckingCommitter.Tick;
import dev.ledger.testing.base.ChildJvm;
import dev.ledger.testing.base.DirectorySnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Delete and archive on files: what other stores of this process and other processes see,
 * refusals that change nothing, what is left on disk, and the leftovers an open removes. The
 * store-independent behaviour is in the contract suite ({@code LedgerDeleteContract}).
 */
class FileLedgerDeleteTest {
  private static final Duration CHILD_DEADLINE = Duration.ofSeconds(60);

  @TempDir
  Path dir;

  private static LedgerOptions options() {
    return AckingCommitter.options();
  }

  private static void commitUpTo(Ledger<Tick> ledger, long from, long to) {
    for (long r = from + 1; r <= to; r++) {
      ledger.commit(r - 1, AckingCommitter.state(r), AckingCommitter.events(r));
    }
  }

  @Test
  void deleteLeavesNothingOfTheLedgerOnDisk() throws IOException {
    Path base = dir.resolve("store");
    try (FileLedgerStore store = FileLedgerStore.open(base, options())) {
      commitUpTo(store.ledger("gone", Tick.class), 0, 30);
      commitUpTo(store.ledger("kept", Tick.class), 0, 3);
      assertThat(store.delete("gone")).isTrue();
      assertThat(base.resolve("ledgers").resolve("gone")).doesNotExist();
      assertThat(listing(base.resolve("ledgers").resolve(LedgerTrash.TRASH))).isEmpty();
      VerifyReport report = store.verify();
      assertThat(report.clean()).as("%s", report.findings()).isTrue();
      assertThat(report.ledgers()).isEqualTo(1);
    }
  }

  @Test
  void anotherStoreThatWroteTheLedgerStartsAfreshAndNeverWritesIntoTheOldOne()
      throws IOException {
    Path base = dir.resolve("store");
    try (FileLedgerStore deleter = FileLedgerStore.open(base, options());
        FileLedgerStore stale = FileLedgerStore.open(base, options())) {
      Ledger<Tick> old = stale.ledger("root-1", Tick.class);
      commitUpTo(old, 0, 12); // cached tail, open segment channel, kept lock channel
      assertThat(deleter.delete("root-1")).isTrue();

      assertThatThrownBy(old::load).isInstanceOf(LedgerNotFoundException.class);
      assertThatThrownBy(() -> old.commit(12, AckingCommitter.state(13)))
          .isInstanceOfSatisfying(RevisionConflictException.class,
              e -> assertThat(e.actual()).isZero());

      // Recreated by the deleter with fewer revisions than the stale store cached.
      Ledger<Tick> fresh = deleter.ledger("root-1", Tick.class);
      commitUpTo(fresh, 0, 1);
      commitUpTo(old, 1, 2); // the stale store's writer goes on from the new ledger
      assertThat(fresh.load().revision()).isEqualTo(2);
      assertThat(fresh.load().state()).isEqualTo(AckingCommitter.state(2));
      assertThat(fresh.events(Cursor.START, 100).events()).hasSize(2);
    }
    try (FileLedgerStore reopened = FileLedgerStore.openReadOnly(base)) {
      VerifyReport report = reopened.verify();
      assertThat(report.clean()).as("%s", report.findings()).isTrue();
      assertThat(reopened.ledger("root-1", Tick.class).load().revision()).isEqualTo(2);
    }
  }

  /**
   * The stale store's next commit comes only after the ledger was created again: the new
   * lock file often gets the removed one's inode number, so the lock file's key alone cannot
   * tell the two ledgers apart; the removal is numbered and the stale writer reads afresh.
   */
  @Test
  void aStaleWriterWhoseLedgerWasDeletedAndCreatedAgainIsRefusedNotWrittenToTheOldFiles()
      throws IOException {
    Path base = dir.resolve("store");
    for (int round = 0; round < 20; round++) {
      String root = "again-" + round;
      try (FileLedgerStore deleter = FileLedgerStore.open(base, options());
          FileLedgerStore stale = FileLedgerStore.open(base, options())) {
        Ledger<Tick> old = stale.ledger(root, Tick.class);
        commitUpTo(old, 0, 3);
        assertThat(deleter.delete(root)).isTrue();
        Ledger<Tick> fresh = deleter.ledger(root, Tick.class);
        commitUpTo(fresh, 0, 1);
        int r = round;
        assertThatThrownBy(() -> old.commit(3, AckingCommitter.state(4)))
            .as("round %s", r).isInstanceOfSatisfying(RevisionConflictException.class,
                e -> assertThat(e.actual()).isEqualTo(1));
        assertThat(fresh.load().revision()).as("round %s", r).isEqualTo(1);
        assertThat(old.load().revision()).as("round %s", r).isEqualTo(1);
      }
    }
    try (FileLedgerStore reopened = FileLedgerStore.openReadOnly(base)) {
      VerifyReport report = reopened.verify();
      assertThat(report.clean()).as("%s", report.findings()).isTrue();
    }
  }

  @Test
  void aStoreClosingAfterTheLedgerWasDeletedWritesNothing() throws IOException {
    Path base = dir.resolve("store");
    FileLedgerStore stale = FileLedgerStore.open(base, options().withCheckpointInterval(1000));
    commitUpTo(stale.ledger("root-1", Tick.class), 0, 7); // a final checkpoint is due
    try (FileLedgerStore deleter = FileLedgerStore.open(base, options())) {
      assertThat(deleter.delete("root-1")).isTrue();
      stale.close();
      assertThat(deleter.exists("root-1")).isFalse();
      assertThat(base.resolve("ledgers").resolve("root-1")).doesNotExist();
    }
  }

  @Test
  void deleteAndArchiveAreRefusedWhileAnotherProcessHoldsTheLock() throws Exception {
    Path base = dir.resolve("store");
    try (FileLedgerStore store = FileLedgerStore.open(base,
        options().withLockTimeout(Duration.ofMillis(300)))) {
      commitUpTo(store.ledger("held", Tick.class), 0, 4);
      Path lockFile = base.resolve("ledgers").resolve("held").resolve(".lock");
      try (ChildJvm holder = ChildJvm.start(LockHolder.class, lockFile.toString())) {
        holder.awaitLine("LOCKED", CHILD_DEADLINE);
        DirectorySnapshot before = DirectorySnapshot.of(base);
        assertThatThrownBy(() -> store.delete("held"))
            .isInstanceOfSatisfying(LedgerBusyException.class, e -> {
              assertThat(e.rootId()).isEqualTo("held");
              assertThat(e.lockFile()).isEqualTo(lockFile);
              assertThat(e.holder()).hasValueSatisfying(
                  h -> assertThat(h).contains("pid=" + holder.pid() + " "));
            })
            .hasMessageContaining(lockFile.toString());
        Path target = dir.resolve("archive");
        assertThatThrownBy(() -> store.archive("held", target))
            .isInstanceOf(LedgerBusyException.class);
        assertThat(DirectorySnapshot.of(base)).isEqualTo(before);
        assertThat(target).doesNotExist();
        holder.send("RELEASE");
        holder.awaitLine("RELEASED", CHILD_DEADLINE);
      }
      assertThat(store.ledger("held", Tick.class).load().revision()).isEqualTo(4);
      assertThat(store.delete("held")).isTrue();
    }
  }

  @Test
  void aReadOnlyStoreRefusesDeleteAndArchive() throws IOException {
    Path base = dir.resolve("store");
    try (FileLedgerStore store = FileLedgerStore.open(base, options())) {
      commitUpTo(store.ledger("root-1", Tick.class), 0, 2);
    }
    DirectorySnapshot before = DirectorySnapshot.of(base);
    try (FileLedgerStore readOnly = FileLedgerStore.openReadOnly(base)) {
      assertThatThrownBy(() -> readOnly.delete("root-1"))
          .isInstanceOf(ReadOnlyStoreException.class);
      assertThatThrownBy(() -> readOnly.archive("root-1", dir.resolve("a")))
          .isInstanceOf(ReadOnlyStoreException.class);
    }
    assertThat(DirectorySnapshot.of(base)).isEqualTo(before);
  }

  @Test
  void openRemovesLeftoverTrashAndImportsOfDeadProcessesOnly() throws IOException {
    Path base = dir.resolve("store");
    try (FileLedgerStore store = FileLedgerStore.open(base, options())) {
      commitUpTo(store.ledger("root-1", Tick.class), 0, 2);
    }
    Path ledgers = base.resolve("ledgers");
    Path trashed = ledgers.resolve(LedgerTrash.TRASH).resolve(".old.1.1");
    Files.createDirectories(trashed.resolve("journal"));
    Files.writeString(trashed.resolve("journal").resolve(JournalFiles.name(1)), "{}\n");
    long dead = deadPid();
    Path deadImport = Files.createDirectories(ledgers.resolve(".import." + dead + ".3"));
    Path oldStyle = Files.createDirectories(ledgers.resolve(".import-" + dead + "-123456789"));
    Files.writeString(deadImport.resolve("state.json"), "{}");
    Path liveImport = Files.createDirectories(ledgers.resolve(".import."
        + ProcessHandle.current().pid() + ".7"));
    try (FileLedgerStore readOnly = FileLedgerStore.openReadOnly(base)) {
      assertThat(trashed).exists(); // a read-only store removes nothing
    }
    try (FileLedgerStore store = FileLedgerStore.open(base, options())) {
      assertThat(listing(ledgers.resolve(LedgerTrash.TRASH))).isEmpty();
      assertThat(deadImport).doesNotExist();
      assertThat(oldStyle).doesNotExist();
      assertThat(liveImport).exists();
      assertThat(store.rootIds()).containsExactly("root-1");
    }
  }

  @Test
  void archiveMovesTheLedgerOutAsACompleteStore() throws IOException {
    Path base = dir.resolve("store");
    Path target = dir.resolve("archives").resolve("root-1");
    try (FileLedgerStore store = FileLedgerStore.open(base, options())) {
      Ledger<Tick> ledger = store.ledger("root-1", Tick.class);
      commitUpTo(ledger, 0, 23); // several segments; the last has preallocated zeros
      commitUpTo(store.ledger("other", Tick.class), 0, 2);
      assertThat(store.archive("root-1", target)).isEqualTo(23);
      assertThat(store.exists("root-1")).isFalse();
      assertThat(store.rootIds()).containsExactly("other");
      assertThatThrownBy(ledger::load).isInstanceOf(LedgerNotFoundException.class);
      assertThatThrownBy(() -> store.archive("root-1", dir.resolve("again")))
          .isInstanceOf(LedgerNotFoundException.class);
      assertThat(dir.resolve("again")).doesNotExist();
    }
    try (FileLedgerStore archive = FileLedgerStore.openReadOnly(target)) {
      VerifyReport report = archive.verify();
      assertThat(report.clean()).as("%s", report.findings()).isTrue();
      assertThat(report.notes()).as("no torn tail, no temp file").isEmpty();
      assertThat(archive.rootIds()).containsExactly("root-1");
      Ledger<Tick> archived = archive.ledger("root-1", Tick.class);
      assertThat(archived.load().state()).isEqualTo(AckingCommitter.state(23));
      assertThat(archived.events(Cursor.START, 100).events()).hasSize(23);
      assertThat(archived.command(AckingCommitter.commandId(7))).isPresent();
    }
    assertThat(target.resolve("ledgers").resolve("root-1").resolve(".lock")).doesNotExist();
    assertThat(listing(target.getParent())).containsExactly("root-1");
  }

  @Test
  void archiveToAnExistingTargetIsRefusedAndChangesNothing() throws IOException {
    Path base = dir.resolve("store");
    Path target = Files.createDirectories(dir.resolve("taken"));
    try (FileLedgerStore store = FileLedgerStore.open(base, options())) {
      commitUpTo(store.ledger("root-1", Tick.class), 0, 3);
      DirectorySnapshot before = DirectorySnapshot.of(base);
      assertThatThrownBy(() -> store.archive("root-1", target))
          .isInstanceOf(LedgerIOException.class).hasMessageContaining(target.toString());
      assertThat(DirectorySnapshot.of(base)).isEqualTo(before);
      assertThat(listing(dir)).containsExactlyInAnyOrder("store", "taken");
      assertThat(store.ledger("root-1", Tick.class).load().revision()).isEqualTo(3);
    }
  }

  static java.util.List<String> listing(Path directory) throws IOException {
    if (!Files.exists(directory)) {
      return java.util.List.of();
    }
    try (Stream<Path> entries = Files.list(directory)) {
      return entries.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  /** A pid no process of this host has now. */
  private static long deadPid() {
    for (long pid = 4_000_000; ; pid--) {
      if (ProcessHandle.of(pid).isEmpty()) {
        return pid;
      }
    }
  }
}
