package dev.ledger.core.fault;

import static org.assertj.core.api.Assertions.assertThat;

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
import dev.ledger.testing.fault.FaultLoop;
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
 * commits and retains again. Rounds of power cuts: {@code ledger.torture.scale}. The loops
 * are {@link FaultLoop}s; the seed of the power cuts' choices is printed with their count.
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

  /**
   * The store a run commits through, opened by the loop's setup (which also commits the
   * baseline) or by the code; after a fault it is abandoned unclosed, as a crashed process
   * leaves it.
   */
  private FileLedgerStore store;
  private Ledger<Counter> ledger;

  private void open(Path root) {
    store = FileLedgerStore.open(root.resolve("store"), options());
    ledger = store.ledger("root-1", Counter.class);
  }

  /** Commits up to the end of the script, then closes the store. */
  private void finishScript() {
    run(store, ledger, acked, SCRIPT);
    store.close();
  }

  /** The check after a fault: only a store failure may have stopped the script. */
  private void check(Path root, FaultLoop.Fault fault) {
    fault.thrown().ifPresent(e -> assertThat(e).as(fault.toString())
        .isInstanceOf(LedgerException.class));
    check(root.resolve("store"), acked, fault.toString());
  }

  @ParameterizedTest
  @EnumSource(value = Op.class, names = {"WRITE", "FORCE", "MOVE", "CREATE", "TRUNCATE"})
  void everyFailedOperationDuringRetentionLeavesAVerifiableLedger(Op op) throws IOException {
    long faults = 0;
    for (Persistence persistence : Persistence.values()) {
      faults += FaultLoop.ioErrorAt(op, persistence)
          .withSetup(root -> {
            open(root);
            run(store, ledger, 0, 6);
          })
          .run(Files.createDirectories(tmp.resolve(op + "-" + persistence)),
              root -> finishScript(), this::check);
    }
    System.out.printf("retention fault loop %s: %d faults injected%n", op, faults);
  }

  @ParameterizedTest
  @EnumSource(value = Op.class, names = {"WRITE", "FORCE", "MOVE", "CREATE", "TRUNCATE"})
  void powerCutAtEveryOperationDuringRetentionLosesNothingThePolicyKeeps(Op op, TestSeed seed)
      throws IOException {
    Random random = seed.random();
    int cuts = 0;
    for (int round = 0; round < SCALE; round++) {
      cuts += FaultLoop.powerCutAt(op).withRandom(random).withSetup(this::open)
          .run(Files.createDirectories(tmp.resolve("cut-" + op + "-" + round)),
              root -> {
                acked = 0;
                finishScript();
              },
              this::check);
    }
    System.out.printf("retention power-cut loop %s: %d cuts (%s)%n", op, cuts, seed);
  }
}
