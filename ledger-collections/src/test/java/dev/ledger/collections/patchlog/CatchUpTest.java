package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.collections.Schema;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.fs.FileLedgerStore;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The check a caught-up view makes before each transaction and read, on files: what another
 * store on the same directory committed (in the preallocated space of the segment, at a
 * segment roll, or in a ledger deleted and created again) is folded in before the callback
 * runs, and reads see it.
 */
class CatchUpTest {
  private static final Schema SCHEMA = Schema.builder()
      .keyValue("counters", String.class, Long.class)
      .queue("work", String.class)
      .build();

  @TempDir
  Path dir;

  /** Small segments, so that the commits below roll several times. */
  private FileLedgerStore open() {
    return FileLedgerStore.open(dir.resolve("store"),
        LedgerOptions.defaults().withSegmentBytes(4096));
  }

  private static Optional<Long> counter(PatchLogCollectionStore store) {
    return store.read("p", v -> v.keyValue("counters", String.class, Long.class).get("n"));
  }

  @Test
  void eachTransactionSeesTheOtherStoresCommitsBeforeItsCallbackRuns() {
    try (FileLedgerStore a = open(); FileLedgerStore b = open()) {
      List<PatchLogCollectionStore> stores = List.of(PatchLogCollectionStore.on(a, SCHEMA),
          PatchLogCollectionStore.on(b, SCHEMA));
      for (int i = 0; i < 90; i++) {
        // Runs of one to three transactions by one store, then the other's turn.
        PatchLogCollectionStore mine = stores.get((i / (1 + i % 3)) % 2);
        PatchLogCollectionStore theirs = stores.get(1 - stores.indexOf(mine));
        AtomicInteger runs = new AtomicInteger();
        String item = "item-" + i;
        long n = mine.execute("p", tx -> {
          runs.incrementAndGet();
          tx.queue("work", String.class).enqueue(List.of(item));
          return tx.keyValue("counters", String.class, Long.class).inc("n", 1L);
        });
        assertThat(n).as("transaction %s", i).isEqualTo(i + 1L);
        assertThat(runs).as("callback runs of transaction %s", i).hasValue(1);
        assertThat(counter(theirs)).as("the other store after transaction %s", i)
            .contains(i + 1L);
        assertThat(counter(mine)).contains(i + 1L);
      }
    }
  }

  /**
   * Another store of this JVM deletes the partition and builds a new one, shorter or longer
   * than the view this store holds: the view is opened afresh, never folded on or written
   * to the removed files (the new lock file often gets the removed one's inode number).
   */
  @Test
  void aLedgerDeletedAndCreatedAgainByAnotherStoreIsReadAsItIsNow() {
    for (int round = 0; round < 10; round++) {
      String p = "p" + round;
      int theirCommits = 1 + round % 5;
      try (FileLedgerStore a = open(); FileLedgerStore b = open()) {
        PatchLogCollectionStore mine = PatchLogCollectionStore.on(a, SCHEMA);
        for (int i = 0; i < 3; i++) {
          mine.execute(p, tx -> tx.keyValue("counters", String.class, Long.class)
              .inc("n", 1L));
        }
        assertThat(b.delete(p)).isTrue();
        PatchLogCollectionStore theirs = PatchLogCollectionStore.on(b, SCHEMA);
        for (int i = 0; i < theirCommits; i++) {
          theirs.execute(p, tx -> tx.keyValue("counters", String.class, Long.class)
              .inc("n", 100L));
        }
        long n = mine.execute(p, tx -> tx.keyValue("counters", String.class, Long.class)
            .inc("n", 1L));
        assertThat(n).as("round %s, %s commits of theirs", round, theirCommits)
            .isEqualTo(100L * theirCommits + 1);
        Optional<Long> read = theirs.read(p, v -> v.keyValue("counters", String.class,
            Long.class).get("n"));
        assertThat(read).as("round %s", round).contains(100L * theirCommits + 1);
        assertThat(b.head(p).orElseThrow().revision()).as("round %s", round)
            .isEqualTo(theirCommits + 1);
      }
    }
  }
}
