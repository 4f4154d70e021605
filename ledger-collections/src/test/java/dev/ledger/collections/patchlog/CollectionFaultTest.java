package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.collections.CollectionOptions;
import dev.ledger.collections.CollectionStore;
import dev.ledger.collections.TransactionResult;
import dev.ledger.core.LedgerException;
import dev.ledger.core.VerifyReport;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import dev.ledger.testing.fault.FaultLoop;
import dev.ledger.testing.fault.Op;
import dev.ledger.testing.fault.Persistence;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Power cuts and I/O errors at every operation of collection transactions on a file store
 * (the {@link FaultLoop} of ledger-testing-base, as the patch log's own fault test runs it):
 * two writers' {@link TxFixture} steps, interleaved in one process through two collection
 * stores on one ledger store (so that each catches up on the other's commits), with
 * checkpoints from the collection store's policy.
 *
 * <p>After a <b>power cut</b>, a restarted process opens the partition, finds every
 * acknowledged step whole, of the step in flight nothing or all, and no other change; the
 * ledger verifies clean and takes the next step. After an <b>I/O error</b>, the failing step
 * is absent or whole (the same check), and the store that saw the error either keeps working
 * (the next steps commit, or are refused with a {@link LedgerException} and write nothing)
 * until the script ends. Script length scales with {@code -Dledger.torture.scale}.
 */
@ExtendWith(SeedExtension.class)
class CollectionFaultTest {
  private static final int SCALE = Integer.getInteger("ledger.torture.scale", 1);
  /** Steps per writer. */
  private static final int STEPS = 3 * SCALE;
  private static final List<String> WRITERS = List.of("a", "b");
  /** A checkpoint every other step or so: the script is short. */
  private static final CollectionOptions OPTIONS =
      TxFixture.collectionOptions().withCheckpoints(0.5, 512);

  @TempDir
  Path diskTmp;

  /** Memory-backed scratch when there is one (many short runs, many forces). */
  Path tmp;

  @BeforeEach
  void chooseScratch() throws IOException {
    Path shm = Path.of("/dev/shm");
    tmp = Files.isDirectory(shm) && Files.isWritable(shm)
        ? Files.createTempDirectory(shm, "ledger-collection-faults-") : diskTmp;
  }

  @AfterEach
  void dropScratch() throws IOException {
    if (!tmp.equals(diskTmp)) {
      try (Stream<Path> all = Files.walk(tmp)) {
        for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /** Per writer: its last acknowledged step, and the step it had in flight. */
  private final Map<String, Long> acked = new LinkedHashMap<>();
  private final Map<String, Long> attempted = new LinkedHashMap<>();
  /** Refusals seen after a first I/O error, over all runs of a loop. */
  private int refusals;

  /**
   * Runs the writers' steps in turn, each through its own collection store; after an error
   * of an I/O-error run, keeps going with the next steps so that the check sees what the
   * store did with them (committed, or refused cleanly); a power cut ends the run at once.
   */
  private void script(Path root, boolean continueAfterError) {
    WRITERS.forEach(w -> {
      acked.put(w, 0L);
      attempted.put(w, 0L);
    });
    try (FileLedgerStore store = FileLedgerStore.open(root.resolve("store"),
        TxFixture.ledgerOptions())) {
      Map<String, CollectionStore> dbs = new LinkedHashMap<>();
      for (String w : WRITERS) {
        dbs.put(w, PatchLogCollectionStore.on(store, TxFixture.SCHEMA, OPTIONS));
      }
      LedgerException first = null;
      for (int t = 1; t <= STEPS; t++) {
        for (String w : WRITERS) {
          long step = acked.get(w) + 1;
          attempted.put(w, step);
          try {
            TransactionResult<List<String>> result = dbs.get(w).execute(TxFixture.PARTITION,
                TxFixture.commandId(w, step), tx -> TxFixture.step(tx, w, step));
            // A replay: the step committed before an error that hid it from this writer.
            acked.put(w, step);
            assertThat(result.revision()).isPositive();
          } catch (LedgerException e) {
            if (!continueAfterError) {
              throw e;
            }
            if (first == null) {
              first = e;
            } else {
              refusals++;
            }
          }
        }
      }
      if (first != null) {
        throw first;
      }
    }
  }

  /** What a restarted process must find after the fault. */
  private void check(Path root, FaultLoop.Fault fault) {
    String context = fault + ", acknowledged " + acked + ", in flight " + attempted;
    // Whatever the store refused, it refused with a typed error.
    fault.thrown().ifPresent(e -> assertThat(e).as(context).isInstanceOf(LedgerException.class));
    try (FileLedgerStore store = FileLedgerStore.open(root.resolve("store"),
        TxFixture.ledgerOptions())) {
      VerifyReport report = store.verify();
      assertThat(report.clean()).as("%s: %s", context, report).isTrue();
      PatchLogCollectionStore db = PatchLogCollectionStore.on(store, TxFixture.SCHEMA, OPTIONS);
      TxFixture.Snapshot snapshot = TxFixture.snapshot(db, WRITERS);
      Map<String, Long> last = new LinkedHashMap<>();
      for (String w : WRITERS) {
        long held = snapshot.counters().getOrDefault("last:" + w, 0L);
        assertThat(held).as("%s: last step of %s", context, w)
            .isBetween(acked.get(w), Math.max(acked.get(w), attempted.get(w)));
        last.put(w, held);
      }
      TxFixture.checkConsistent(snapshot, last, context);
      for (String w : WRITERS) {
        long next = last.get(w) + 1;
        db.execute(TxFixture.PARTITION, TxFixture.commandId(w, next),
            tx -> TxFixture.step(tx, w, next));
        last.put(w, next);
      }
      TxFixture.checkConsistent(TxFixture.snapshot(db, WRITERS), last,
          context + ", after one more step each");
      assertThat(store.verify().clean()).as(context).isTrue();
    }
  }

  @ParameterizedTest
  @EnumSource(value = Op.class, names = {"WRITE", "FORCE", "MOVE", "CREATE", "TRUNCATE"})
  void powerCutAtEveryOperationKeepsEveryAcknowledgedTransactionWhole(Op op, TestSeed seed) {
    int cuts = FaultLoop.powerCutAt(op).withRandom(seed.random())
        .run(tmp, root -> script(root, false), this::check);
    System.out.printf("collection power-cut loop %s: %d cuts (%s)%n", op, cuts, seed);
  }

  @ParameterizedTest
  @EnumSource(value = Op.class, names = {"WRITE", "FORCE", "MOVE"})
  void persistentIoErrorLeavesTheFailedTransactionAbsentOrWhole(Op op) {
    int faults = FaultLoop.ioErrorAt(op, Persistence.PERSISTENT)
        .run(tmp, root -> script(root, true), this::check);
    System.out.printf("collection persistent I/O error loop %s: %d faults, %d later steps "
        + "refused%n", op, faults, refusals);
  }

  @ParameterizedTest
  @EnumSource(value = Op.class, names = {"WRITE", "FORCE", "MOVE"})
  void transientIoErrorLeavesTheStoreUsable(Op op) {
    int faults = FaultLoop.ioErrorAt(op, Persistence.TRANSIENT)
        .run(tmp, root -> script(root, true), this::check);
    System.out.printf("collection transient I/O error loop %s: %d faults, %d later steps "
        + "refused%n", op, faults, refusals);
  }
}
