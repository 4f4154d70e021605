package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.core.Durability;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LockLostException;
import dev.ledger.core.internal.io.Identifiers;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A writer that finds its ledger's lock untouched since its last commit trusts its cached
 * journal end without looking ({@code FileLocks.Held#undisturbedSince}); any other holder in
 * between, of this process or another, makes it look. Two stores of one process take turns
 * on one ledger, each commit naming the revision the other just made: a writer that trusted a
 * stale end would refuse it (or overwrite the other's record).
 */
class FileLedgerTailCurrencyTest {
  @TempDir
  Path dir;

  @ParameterizedTest
  @EnumSource(value = Durability.class, names = {"SYNC", "UNSAFE_NO_SYNC"})
  void storesTakingTurnsOnOneLedgerEachSeeTheOthersCommits(Durability durability)
      throws Exception {
    // Small segments and checkpoints: turns also fall on rolls and checkpoints.
    LedgerOptions options = LedgerOptions.defaults().withDurability(durability)
        .withCheckpointInterval(5).withSegmentBytes(4096);
    Path base = dir.resolve("store");
    // A fixed pattern of runs of one store: 1, 2 or 3 commits before the other takes over.
    int[] runs = {1, 2, 3, 1, 1, 3, 2, 2, 1, 3};
    int total = 0;
    try (FileLedgerStore a = FileLedgerStore.open(base, options);
        FileLedgerStore b = FileLedgerStore.open(base, options)) {
      Ledger<Counter> first = a.ledger("turns", Counter.class);
      Ledger<Counter> second = b.ledger("turns", Counter.class);
      long revision = first.commit(Ledger.NO_REVISION, new Counter(0)).revision();
      for (int round = 0; round < 6; round++) {
        for (int i = 0; i < runs.length; i++) {
          Ledger<Counter> ledger = i % 2 == 0 ? first : second;
          String writer = i % 2 == 0 ? "a" : "b";
          for (int k = 0; k < runs[i]; k++) {
            revision = ledger.commit(revision, new Counter(total + 1),
                Counter.incremented(writer, total)).revision();
            total++;
          }
        }
        if (round == 2) {
          // Another process's turn: it leaves its own holder line in the lock file.
          Path lockFile = base.resolve("ledgers")
              .resolve(Identifiers.toDirectoryName("root id", "turns")).resolve(".lock");
          assertThat(lockFile).exists();
          Files.writeString(lockFile, "pid=1 host=elsewhere\n");
        }
      }
      Counter.assertLandedExactlyOnce(first, total);
      Counter.assertLandedExactlyOnce(second, total);
    }
    try (FileLedgerStore reopened = FileLedgerStore.open(base, options)) {
      Counter.assertLandedExactlyOnce(reopened.ledger("turns", Counter.class), total);
      assertThat(reopened.verify().clean()).as("verify").isTrue();
    }
  }

  @ParameterizedTest
  @EnumSource(value = Durability.class, names = {"SYNC", "UNSAFE_NO_SYNC"})
  void aLockFileReplacedBehindTheWritersBackFailsOneCommitBeforeItsCommitPointOnly(
      Durability durability) throws Exception {
    LedgerOptions options = LedgerOptions.defaults().withDurability(durability);
    Path base = dir.resolve("store");
    try (FileLedgerStore store = FileLedgerStore.open(base, options)) {
      Ledger<Counter> ledger = store.ledger("turns", Counter.class);
      long revision = ledger.commit(Ledger.NO_REVISION, new Counter(0)).revision();
      revision = ledger.commit(revision, new Counter(1), Counter.incremented("a", 0)).revision();
      Path lockFile = base.resolve("ledgers")
          .resolve(Identifiers.toDirectoryName("root id", "turns")).resolve(".lock");
      // Something that ignores the lock replaces the file (its holder line copied along).
      byte[] line = Files.readAllBytes(lockFile);
      Files.delete(lockFile);
      Files.write(lockFile, line);
      long before = revision;
      assertThatThrownBy(() -> ledger.commit(before, new Counter(2),
          Counter.incremented("a", 1))).isInstanceOf(LockLostException.class)
          .hasMessageContaining(lockFile.getFileName().toString());
      assertThat(ledger.load().revision()).isEqualTo(before);
      revision = ledger.commit(revision, new Counter(2), Counter.incremented("a", 1))
          .revision();
      revision = ledger.commit(revision, new Counter(3), Counter.incremented("a", 2))
          .revision();
      Counter.assertLandedExactlyOnce(ledger, 3);
    }
    try (FileLedgerStore reopened = FileLedgerStore.open(base, options)) {
      Counter.assertLandedExactlyOnce(reopened.ledger("turns", Counter.class), 3);
    }
  }
}
