package dev.ledger.core.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerException;
import dev.ledger.core.LedgerFailedException;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.Versioned;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import dev.ledger.testing.fault.FaultyFileSystem;
import dev.ledger.testing.fault.Op;
import dev.ledger.testing.fault.Persistence;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * I/O error loops and power-cut loops over the file store (issue "reliability", points 1-3):
 * fail or cut power at the n-th operation of each kind, for n = 1, 2, ... until the script
 * completes, and check after each fault that no acknowledged commit was lost or altered.
 */
@ExtendWith(SeedExtension.class)
class FaultInjectionTest {
  private static final int SCALE = Integer.getInteger("ledger.torture.scale", 1);
  private static final int BASELINE = 3;
  private static final int SCRIPT = 6 + 2 * (SCALE - 1);

  @TempDir
  Path diskTmp;

  /**
   * Where the loops write: memory-backed {@code /dev/shm} when there is one. The fault model
   * decides what survives a cut from the forces the store issues, not from the device, so a
   * RAM file system loses nothing the test needs, and the hundreds of loop iterations stop
   * paying real fsyncs.
   */
  Path tmp;

  @org.junit.jupiter.api.BeforeEach
  void chooseScratch() throws IOException {
    Path shm = Path.of("/dev/shm");
    tmp = Files.isDirectory(shm) && Files.isWritable(shm)
        ? Files.createTempDirectory(shm, "ledger-faults-") : diskTmp;
  }

  @org.junit.jupiter.api.AfterEach
  void dropScratch() throws IOException {
    if (!tmp.equals(diskTmp)) {
      try (Stream<Path> all = Files.walk(tmp)) {
        for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  record Counter(int value, String pad) {}

  private static LedgerOptions options() {
    return LedgerOptions.defaults()
        .withClock(Clock.fixed(Instant.parse("2026-11-29T12:00:00Z"), ZoneOffset.UTC))
        .withCheckpointInterval(3)
        .withSegmentBytes(4096);
  }

  private static Counter state(int revision) {
    return new Counter(revision, "p".repeat(600 + revision % 7));
  }

  private static EventDraft draft(int revision) {
    return EventDraft.of("inc", Map.of("to", revision)).withCommandId("cmd-" + revision);
  }

  /** The last revision whose commit returned, updated as soon as it returns. */
  private int acked;

  /** Commits revisions from+1..to, recording each acknowledgement in {@link #acked}. */
  private int run(Ledger<Counter> ledger, int from, int to) {
    acked = from;
    for (int r = from + 1; r <= to; r++) {
      CommitResult result = ledger.commit(r - 1, state(r), draft(r));
      assertThat(result.revision()).isEqualTo(r);
      acked = r;
    }
    return acked;
  }

  /** Everything a reopened store must show after acknowledged revision {@code acked}. */
  private void verify(Path root, int acked, String context) {
    try (FileLedgerStore store = FileLedgerStore.open(root, options())) {
      Ledger<Counter> ledger = store.ledger("root-1", Counter.class);
      Versioned<Counter> loaded = ledger.find().orElse(null);
      int revision = loaded == null ? 0 : (int) loaded.revision();
      assertThat(revision).as("%s: revision after ack %s", context, acked)
          .isBetween(acked, acked + 1);
      if (loaded != null) {
        assertThat(loaded.state()).as(context).isEqualTo(state(revision));
      }
      try (Stream<Event> events = ledger.replay(Cursor.START)) {
        List<Event> all = events.toList();
        assertThat(all).as(context).hasSize(revision);
        for (int i = 0; i < all.size(); i++) {
          assertThat(all.get(i).sequence()).as(context).isEqualTo(i + 1);
          assertThat(all.get(i).revision()).as(context).isEqualTo(i + 1);
          assertThat(all.get(i).payload().get("to").asInt()).as(context).isEqualTo(i + 1);
        }
      }
      for (int r = Math.max(1, revision - 3); r <= revision; r++) {
        CommitResult again = ledger.commit(r - 1, state(r), draft(r));
        assertThat(again.replayed()).as("%s: command of revision %s", context, r).isTrue();
        assertThat(again.revision()).as(context).isEqualTo(r);
      }
      // The store takes new commits after recovery.
      int next = run(ledger, revision, revision + 2);
      assertThat(ledger.load().revision()).as(context).isEqualTo(next);
    }
  }

  @ParameterizedTest
  @EnumSource(value = Op.class, names = {"WRITE", "FORCE", "MOVE", "CREATE", "TRUNCATE"})
  void everyFailedOperationLeavesTheLastAcknowledgedStateIntact(Op op) throws IOException {
    long faults = 0;
    for (Persistence persistence : Persistence.values()) {
      for (int n = 1; ; n++) {
        String context = op + " " + persistence + " fault at #" + n;
        Path dir = Files.createDirectories(tmp.resolve(op + "-" + persistence + "-" + n));
        FaultyFileSystem fs = FaultyFileSystem.over(dir);
        Path root = fs.root().resolve("store");
        FileLedgerStore store = FileLedgerStore.open(root, options());
        Ledger<Counter> ledger = store.ledger("root-1", Counter.class);
        run(ledger, 0, BASELINE);
        long before = fs.injected();
        fs.failAt(op, n, persistence);
        LedgerException failure = null;
        try {
          run(ledger, acked, BASELINE + SCRIPT);
          store.close();
        } catch (LedgerException e) {
          failure = e;
          int attempted = acked + 1;
          if (e instanceof dev.ledger.core.LedgerIOException
              && e.getMessage().contains("appending commit record")) {
            // After a failed append or force, the ledger refuses writes until reopened.
            assertThatThrownBy(() -> ledger.commit(attempted, state(attempted + 1)))
                .as(context).isInstanceOf(LedgerFailedException.class);
          }
        }
        boolean triggered = fs.injected() > before;
        fs.clearFaults();
        if (!triggered) {
          assertThat(failure).as(context).isNull();
          break;
        }
        faults++;
        // Whatever failed, a checkpoint or the final close may be refused too; the store
        // is abandoned as a crashed process would leave it.
        verify(root, acked, context);
        assertThat(n).as("%s: loop must end", context).isLessThan(500);
      }
    }
    assertThat(faults).as("faults injected for %s", op).isPositive();
    System.out.printf("fault loop %s: %d faults injected%n", op, faults);
  }

  @ParameterizedTest
  @EnumSource(value = Op.class, names = {"WRITE", "FORCE", "MOVE", "CREATE", "TRUNCATE"})
  void powerCutAtEveryOperationLosesNothingAcknowledged(Op op, TestSeed seed) throws IOException {
    Random random = seed.random();
    int cuts = 0;
    for (int round = 0; round < SCALE; round++) {
      for (int n = 1; ; n++) {
        String context = seed + " round " + round + ": power cut at " + op + " #" + n;
        Path dir = Files.createDirectories(tmp.resolve("cut-" + op + "-" + round + "-" + n));
        FaultyFileSystem fs = FaultyFileSystem.over(dir);
        Path root = fs.root().resolve("store");
        FileLedgerStore store = FileLedgerStore.open(root, options());
        Ledger<Counter> ledger = store.ledger("root-1", Counter.class);
        fs.powerCutAt(op, n, random);
        try {
          run(ledger, 0, BASELINE + SCRIPT);
          store.close();
        } catch (LedgerException e) {
          if (fs.injected() == 0) {
            fail(context + ": unexpected failure without a fault", e);
          }
        }
        if (fs.injected() == 0) {
          break;
        }
        cuts++;
        verify(root, acked, context);
      }
    }
    assertThat(cuts).isPositive();
    System.out.printf("power-cut loop %s: %d cuts (%s)%n", op, cuts, seed);
  }

  @Test
  void powerCutBetweenCommitsKeepsEveryAcknowledgedCommit(TestSeed seed) throws IOException {
    Random random = seed.random();
    for (int prefix = 0; prefix <= BASELINE + SCRIPT; prefix++) {
      for (int trial = 0; trial < SCALE; trial++) {
        String context = seed + ": cut after " + prefix + " commits, trial " + trial;
        Path dir = Files.createDirectories(tmp.resolve("between-" + prefix + "-" + trial));
        FaultyFileSystem fs = FaultyFileSystem.over(dir);
        Path root = fs.root().resolve("store");
        FileLedgerStore store = FileLedgerStore.open(root, options());
        run(store.ledger("root-1", Counter.class), 0, prefix);
        String lost = fs.cutPower(random);
        verify(root, acked, context + "\n" + lost);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Op.class)
  void faultsDuringRecoveryAreReportedAndRetryable(Op op) throws IOException {
    long faults = 0;
    for (int n = 1; ; n++) {
      String context = op + " fault at #" + n + " while recovering";
      Path dir = Files.createDirectories(tmp.resolve("recover-" + op + "-" + n));
      FaultyFileSystem fs = FaultyFileSystem.over(dir);
      Path root = fs.root().resolve("store");
      // A crashed writer: commits, then abandoned with a torn tail and a stale temp file.
      run(FileLedgerStore.open(root, options()).ledger("root-1", Counter.class), 0, BASELINE);
      Path journal = FaultyFileSystem.real(root).resolve("ledgers/root-1/journal");
      Files.write(journal.resolve("00000000000000000001.jsonl"), "{\"crc32c\":\"0000".getBytes(
          java.nio.charset.StandardCharsets.UTF_8), java.nio.file.StandardOpenOption.APPEND);
      Files.write(FaultyFileSystem.real(root).resolve("ledgers/root-1/.state.json.tmp"),
          new byte[] {1, 2, 3});
      long before = fs.injected();
      fs.failAt(op, n, Persistence.TRANSIENT);
      try (FileLedgerStore store = FileLedgerStore.open(root, options())) {
        Ledger<Counter> ledger = store.ledger("root-1", Counter.class);
        store.rootIds();
        ledger.commit(BASELINE, state(BASELINE + 1), draft(BASELINE + 1));
        acked = BASELINE + 1;
      } catch (LedgerException e) {
        assertThat(fs.injected()).as(context).isGreaterThan(before);
      }
      boolean triggered = fs.injected() > before;
      fs.clearFaults();
      if (!triggered) {
        break;
      }
      faults++;
      verify(root, acked, context);
      assertThat(n).as("%s: loop must end", context).isLessThan(500);
    }
    System.out.printf("recovery fault loop %s: %d faults injected%n", op, faults);
  }

  @Test
  void fullDiskFailsTheCommitAndTheStoreRecoversWhenSpaceReturns() throws IOException {
    for (long bytes = 0; bytes < 6000; bytes += 331) {
      String context = "disk full after " + bytes + " bytes";
      Path dir = Files.createDirectories(tmp.resolve("full-" + bytes));
      FaultyFileSystem fs = FaultyFileSystem.over(dir);
      Path root = fs.root().resolve("store");
      FileLedgerStore store = FileLedgerStore.open(root, options());
      Ledger<Counter> ledger = store.ledger("root-1", Counter.class);
      run(ledger, 0, 2);
      fs.limitBytes(bytes);
      try {
        run(ledger, acked, 2 + SCRIPT);
      } catch (LedgerException e) {
        assertThat(e).as(context).hasStackTraceContaining("No space left on device");
      }
      fs.clearFaults();
      verify(root, acked, context);
    }
  }
}
