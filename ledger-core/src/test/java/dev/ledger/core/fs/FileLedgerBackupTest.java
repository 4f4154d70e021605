package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.core.BackupResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.StoreNotFoundException;
import dev.ledger.core.VerifyReport;
import dev.ledger.testing.base.DirectorySnapshot;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Online backup of a file store: taken under 4 writer threads that commit (with segment rolls
 * and checkpoints) until it is done, every ledger of the copy is the source's ledger at some
 * revision, whole, and the copy verifies.
 */
@ExtendWith(SeedExtension.class)
class FileLedgerBackupTest {
  private static final int LEDGERS = 6;
  private static final int WRITERS = 4;

  @TempDir
  Path dir;

  /**
   * The state: a step count and the writer that made the last step.
   *
   * @param n the steps committed
   * @param by the writer of the last one
   */
  record Steps(long n, String by) {}

  private static LedgerOptions options() {
    return LedgerOptions.defaults().withSegmentBytes(4096).withCheckpointInterval(5)
        .withLockTimeout(Duration.ofSeconds(30));
  }

  private static String root(int i) {
    return "ledger-" + i;
  }

  @Test
  void backupUnderFourWritersCopiesEachLedgerWholeAtSomeRevision(TestSeed seed)
      throws Exception {
    int rounds = Integer.getInteger("ledger.torture.scale", 1);
    for (int round = 0; round < rounds; round++) {
      backupOnce(seed, round);
    }
  }

  private void backupOnce(TestSeed seed, int round) throws Exception {
    Path base = dir.resolve("store-" + round);
    Path target = dir.resolve("backup-" + round);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong commits = new AtomicLong();
    AtomicReference<Throwable> failed = new AtomicReference<>();
    BackupResult result;
    try (FileLedgerStore store = FileLedgerStore.open(base, options())) {
      List<Thread> writers = new ArrayList<>();
      java.util.Random seeds = seed.random();
      for (int w = 0; w < WRITERS; w++) {
        String name = "writer-" + w;
        SplittableRandom mine = new SplittableRandom(seeds.nextLong());
        Thread writer = new Thread(() -> {
          try {
            while (!stop.get()) {
              step(store.ledger(root(mine.nextInt(LEDGERS)), Steps.class), name);
              commits.incrementAndGet();
            }
          } catch (RuntimeException | Error e) {
            failed.compareAndSet(null, e);
          }
        }, name);
        writers.add(writer);
        writer.start();
      }
      awaitCommits(commits, 200, failed);
      result = store.backup(target);
      long atBackup = commits.get();
      awaitCommits(commits, atBackup + 100, failed);
      stop.set(true);
      for (Thread writer : writers) {
        writer.join(60_000);
      }
      assertThat(failed.get()).as("a writer failed (%s)", seed).isNull();
    }
    assertThat(result.ledgers()).as("ledgers copied").isEqualTo(LEDGERS);
    try (FileLedgerStore source = FileLedgerStore.openReadOnly(base);
        FileLedgerStore copy = FileLedgerStore.openReadOnly(target)) {
      VerifyReport report = copy.verify();
      assertThat(report.clean()).as("%s (%s)", report.findings(), seed).isTrue();
      assertThat(copy.rootIds()).containsExactlyElementsOf(result.revisions().keySet());
      for (String root : copy.rootIds()) {
        long revision = result.revisions().get(root);
        Ledger<Steps> copied = copy.ledger(root, Steps.class);
        Ledger<Steps> original = source.ledger(root, Steps.class);
        assertThat(copied.load().revision()).isEqualTo(revision);
        assertThat(revision).isLessThanOrEqualTo(original.load().revision());
        List<Event> before = events(original, revision);
        // The state the source had at that revision, from the event committed with it.
        Event last = before.get(before.size() - 1);
        assertThat(last.revision()).isEqualTo(revision);
        assertThat(copied.load().state()).as("%s at %d (%s)", root, revision, seed)
            .isEqualTo(last.payloadAs(Steps.class));
        assertThat(events(copied, Long.MAX_VALUE)).as("%s events (%s)", root, seed)
            .isEqualTo(before);
        String command = commandId(root, last.payloadAs(Steps.class));
        assertThat(copied.command(command)).as("command of the last revision copied")
            .hasValueSatisfying(r -> assertThat(r.revision()).isEqualTo(revision));
      }
    }
    System.out.printf("backup under %d writers: %d ledgers copied at revisions %s (%s)%n",
        WRITERS, result.ledgers(), result.revisions(), seed);
  }

  @Test
  void backupIntoAStoreIsRefusedAndAnEmptyBackupIsAStore() throws Exception {
    Path base = dir.resolve("store");
    try (FileLedgerStore store = FileLedgerStore.open(base, options())) {
      Path empty = dir.resolve("empty");
      assertThat(store.backup(empty).ledgers()).isZero();
      try (FileLedgerStore copy = FileLedgerStore.openReadOnly(empty)) {
        assertThat(copy.rootIds()).isEmpty();
        assertThat(copy.verify().clean()).isTrue();
      }
      step(store.ledger("root-1", Steps.class), "me");
      DirectorySnapshot before = DirectorySnapshot.of(dir);
      assertThatThrownBy(() -> store.backup(base)).isInstanceOf(LedgerIOException.class)
          .hasMessageContaining("store.json");
      assertThatThrownBy(() -> store.backup(empty)).isInstanceOf(LedgerIOException.class);
      assertThat(DirectorySnapshot.of(dir)).isEqualTo(before);
      // A directory holding something else (an artifact backup, say) takes the ledgers.
      Path shared = Files.createDirectories(dir.resolve("shared").resolve("artifacts"))
          .getParent();
      assertThat(store.backup(shared).revisions()).containsEntry("root-1", 1L);
      assertThat(FileLedgerDeleteTest.listing(shared))
          .containsExactly("artifacts", "ledgers", "store.json");
    }
    assertThatThrownBy(() -> FileLedgerStore.openReadOnly(dir.resolve("nothing")))
        .isInstanceOf(StoreNotFoundException.class);
  }

  /**
   * Commits the next step, retrying lost races; the event carries the state it commits, so a
   * replay of the source tells the state of any revision.
   */
  private static void step(Ledger<Steps> ledger, String writer) {
    while (true) {
      long at = ledger.find().map(v -> v.revision()).orElse(Ledger.NO_REVISION);
      Steps next = new Steps(at + 1, writer);
      try {
        ledger.commit(at, next, EventDraft.of("step", Map.of("n", next.n(), "by", writer))
            .withCommandId(commandId(ledger.rootId(), next)));
        return;
      } catch (dev.ledger.core.RevisionConflictException e) {
        // another writer took this revision: read again
      }
    }
  }

  private static String commandId(String root, Steps steps) {
    return "step-" + root + "-" + steps.n() + "-" + steps.by();
  }

  private static List<Event> events(Ledger<Steps> ledger, long upTo) {
    try (Stream<Event> all = ledger.replay(Cursor.START)) {
      return all.filter(e -> e.revision() <= upTo).toList();
    }
  }

  private static void awaitCommits(AtomicLong commits, long atLeast,
      AtomicReference<Throwable> failed) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (commits.get() < atLeast && failed.get() == null) {
      assertThat(System.nanoTime()).as("%d commits within 120 s", atLeast)
          .isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  @Test
  void backupOfARetainedLedgerStartsWhereItsHistoryStartsAndVerifies() throws Exception {
    Path base = dir.resolve("retained");
    Path target = dir.resolve("retained-backup");
    try (FileLedgerStore store = FileLedgerStore.open(base, options())) {
      dev.ledger.core.Ledger<Steps> ledger = store.ledger("kept", Steps.class);
      for (int i = 0; i < 60; i++) {
        ledger.commit(i, new Steps(i + 1, "w"),
            dev.ledger.core.EventDraft.of("step", java.util.Map.of("n", i + 1)));
      }
      dev.ledger.core.RetentionResult cut = store.applyRetention("kept",
          dev.ledger.core.RetentionPolicy.keepRevisions(10));
      assertThat(cut.segmentsRemoved()).as("segments removed").isPositive();
      store.backup(target);
      try (FileLedgerStore copy = FileLedgerStore.openReadOnly(target)) {
        assertThat(copy.verify().clean()).as("%s", copy.verify()).isTrue();
        dev.ledger.core.Ledger<Steps> copied = copy.ledger("kept", Steps.class);
        assertThat(copied.load().state()).isEqualTo(ledger.load().state());
        assertThat(copied.firstRetainedSequence()).isEqualTo(ledger.firstRetainedSequence());
        assertThat(copied.events(dev.ledger.core.Cursor.START, 1000).events())
            .isEqualTo(ledger.events(dev.ledger.core.Cursor.START, 1000).events());
      }
    }
  }
}
