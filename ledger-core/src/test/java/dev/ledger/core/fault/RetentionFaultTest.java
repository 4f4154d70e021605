package dev.ledger.core.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.RetentionPolicy;
import dev.ledger.core.VerifyReport;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * I/O-error and power-cut loops over retention while committing: a script commits and
 * applies {@code keepRevisions(KEEP)} after every third commit; a fault (or a power cut) is
 * injected at the n-th operation of a kind, for n = 1, 2, ... until the script completes.
 * After each, the store opens on what the disk kept, {@code verify()} finds no damage, the
 * state is the last acknowledged one (or the one in flight), the journal from the first
 * retained event on is gapless and whole, nothing the policy keeps is missing, and the store
 * commits and retains again. Rounds of power cuts: {@code ledger.torture.scale}.
 */
@ExtendWith(SeedExtension.class)
class RetentionFaultTest {
  private static final int SCALE = Integer.getInteger("ledger.torture.scale", 1);
  private static final int KEEP = 4;
  private static final int SCRIPT = 18 + 6 * (SCALE - 1);

  @TempDir
  Path diskTmp;

  /** Memory-backed scratch where there is one (see FaultInjectionTest). */
  Path tmp;

  @BeforeEach
  void chooseScratch() throws IOException {
    Path shm = Path.of("/dev/shm");
    tmp = Files.isDirectory(shm) && Files.isWritable(shm)
        ? Files.createTempDirectory(shm, "ledger-retention-faults-") : diskTmp;
  }

  @AfterEach
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
        .withClock(Clock.fixed(Instant.parse("2026-11-30T12:00:00Z"), ZoneOffset.UTC))
        .withCheckpointInterval(5)
        .withSegmentBytes(4096);
  }

  private static Counter state(int revision) {
    return new Counter(revision, "p".repeat(600 + revision % 7));
  }

  private static EventDraft draft(int revision) {
    return EventDraft.of("inc", Map.of("to", revision)).withCommandId("cmd-" + revision);
  }

  /** The last revision whose commit returned. */
  private int acked;

  /** Commits revisions from+1..to, applying the policy after every third. */
  private void run(FileLedgerStore store, Ledger<Counter> ledger, int from, int to) {
    acked = from;
    for (int r = from + 1; r <= to; r++) {
      CommitResult result = ledger.commit(r - 1, state(r), draft(r));
      assertThat(result.revision()).isEqualTo(r);
      acked = r;
      if (r % 3 == 0) {
        store.applyRetention("root-1", RetentionPolicy.keepRevisions(KEEP));
      }
    }
  }

  /** What a reopened store must show after acknowledged revision {@code acked}. */
  private void check(Path root, int acked, String context) {
    try (FileLedgerStore store = FileLedgerStore.open(root, options())) {
      VerifyReport report = store.verify();
      assertThat(report.clean()).as("%s: verify %s", context, report).isTrue();
      Ledger<Counter> ledger = store.ledger("root-1", Counter.class);
      Versioned<Counter> loaded = ledger.find().orElse(null);
      int revision = loaded == null ? 0 : (int) loaded.revision();
      assertThat(revision).as("%s: revision after ack %s", context, acked)
          .isBetween(acked, acked + 1);
      if (loaded == null) {
        return;
      }
      assertThat(loaded.state()).as(context).isEqualTo(state(revision));
      long first = ledger.firstRetainedSequence();
      assertThat(first).as("%s: first retained", context)
          .isLessThanOrEqualTo(Math.max(1, acked - KEEP + 1));
      try (Stream<Event> events = ledger.replay(Cursor.START)) {
        List<Event> all = events.toList();
        assertThat(all).as(context).hasSize((int) (revision - first + 1));
        for (int i = 0; i < all.size(); i++) {
          assertThat(all.get(i).sequence()).as(context).isEqualTo(first + i);
          assertThat(all.get(i).payload().get("to").asInt()).as(context)
              .isEqualTo((int) first + i);
        }
      }
      for (int r = Math.max(1, revision - KEEP - 2); r <= revision; r++) {
        CommitResult again = ledger.commit(r - 1, state(r), draft(r));
        assertThat(again.replayed()).as("%s: command of revision %s", context, r).isTrue();
        assertThat(again.revision()).as(context).isEqualTo(r);
      }
      run(store, ledger, revision, revision + 3);
      assertThat(ledger.load().revision()).as(context).isEqualTo(revision + 3);
    }
  }

  @ParameterizedTest
  @EnumSource(value = Op.class, names = {"WRITE", "FORCE", "MOVE", "CREATE", "TRUNCATE"})
  void everyFailedOperationDuringRetentionLeavesAVerifiableLedger(Op op) throws IOException {
    long faults = 0;
    for (Persistence persistence : Persistence.values()) {
      for (int n = 1; ; n++) {
        String context = op + " " + persistence + " fault at #" + n;
        Path dir = Files.createDirectories(tmp.resolve(op + "-" + persistence + "-" + n));
        FaultyFileSystem fs = FaultyFileSystem.over(dir);
        Path root = fs.root().resolve("store");
        FileLedgerStore store = FileLedgerStore.open(root, options());
        Ledger<Counter> ledger = store.ledger("root-1", Counter.class);
        run(store, ledger, 0, 6);
        long before = fs.injected();
        fs.failAt(op, n, persistence);
        try {
          run(store, ledger, acked, SCRIPT);
          store.close();
        } catch (LedgerException e) {
          // abandoned as a crashed process would leave it
        }
        boolean triggered = fs.injected() > before;
        fs.clearFaults();
        if (!triggered) {
          break;
        }
        faults++;
        check(root, acked, context);
        assertThat(n).as("%s: loop must end", context).isLessThan(1000);
      }
    }
    assertThat(faults).as("faults injected for %s", op).isPositive();
    System.out.printf("retention fault loop %s: %d faults injected%n", op, faults);
  }

  @ParameterizedTest
  @EnumSource(value = Op.class, names = {"WRITE", "FORCE", "MOVE", "CREATE", "TRUNCATE"})
  void powerCutAtEveryOperationDuringRetentionLosesNothingThePolicyKeeps(Op op, TestSeed seed)
      throws IOException {
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
          run(store, ledger, 0, SCRIPT);
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
        check(root, acked, context);
      }
    }
    assertThat(cuts).isPositive();
    System.out.printf("retention power-cut loop %s: %d cuts (%s)%n", op, cuts, seed);
  }
}
