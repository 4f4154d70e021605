package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.testing.fault.FaultLoop;
import dev.ledger.testing.fault.FaultyFileSystem;
import dev.ledger.testing.fault.Op;
import dev.ledger.testing.fault.Persistence;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Repair on the fault-injecting file system ({@link FaultLoop}): a power cut at every write,
 * force, move, create and delete (and a transient I/O error at each force, move and delete)
 * that a repair of two
 * {@link DamagedLedgers} makes (one without a checkpoint, one with a corrupt one). Then the
 * store reopens on what the disk kept: the journals are as before, verify finds no damage that
 * was not there before, none in a ledger whose repair returned (which is whole), and a repair
 * run again completes and leaves a clean store of whole ledgers.
 */
class RepairFaultTest {
  private static final int LEDGERS = 2;

  private static Path template;
  private static Set<String> damageBefore;
  private static Map<String, String> journals;

  @TempDir
  Path tmp;

  @BeforeAll
  static void writeTemplate(@TempDir Path dir) {
    template = dir.resolve("template");
    DamagedLedgers.write(template, LEDGERS);
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(template)) {
      damageBefore = DamagedLedgers.damage(store, template);
    }
    journals = DamagedLedgers.journals(template, LEDGERS);
  }

  /** Copies the template through the real file system, so the fault model sees it durable. */
  private static void prepare(Path root) throws IOException {
    DamagedLedgers.copy(template, FaultyFileSystem.real(root).resolve("store"));
  }

  @ParameterizedTest
  @EnumSource(value = Op.class, names = {"WRITE", "FORCE", "MOVE", "CREATE", "DELETE"})
  void powerCutsAndErrorsDuringRepairLeaveNoNewDamage(Op op) throws IOException {
    int faults = 0;
    // I/O errors too where a failure is the caller's to see, as in RemovalFaultTest; a write
    // or create that fails is no different to the repair, and would double the loop.
    Persistence[] kinds = op == Op.WRITE || op == Op.CREATE ? new Persistence[] {null}
        : new Persistence[] {null, Persistence.TRANSIENT};
    for (Persistence persistence : kinds) {
      Set<String> repaired = ConcurrentHashMap.newKeySet();
      FaultLoop loop = (persistence == null ? FaultLoop.powerCutAt(op)
          : FaultLoop.ioErrorAt(op, persistence)).withSetup(RepairFaultTest::prepare);
      Path scratch = Files.createDirectories(tmp.resolve(op + "-" + persistence));
      faults += loop.run(scratch,
          root -> {
            repaired.clear();
            try (FileLedgerStore store = FileLedgerStore.open(root.resolve("store"),
                AckingCommitter.options())) {
              for (int i = 0; i < LEDGERS; i++) {
                store.repair(DamagedLedgers.root(i));
                repaired.add(DamagedLedgers.root(i));
              }
            }
          },
          (root, fault) -> {
            String context = fault.toString();
            Path base = root.resolve("store");
            assertThat(DamagedLedgers.journals(base, LEDGERS)).as("%s: journals", context)
                .isEqualTo(journals);
            try (FileLedgerStore store = FileLedgerStore.open(base,
                AckingCommitter.options())) {
              Set<String> damage = DamagedLedgers.damage(store, base);
              assertThat(damageBefore).as("%s: only old damage", context).containsAll(damage);
              for (String done : repaired) {
                assertThat(damage).as(context).noneMatch(d -> d.contains(" " + done + " "));
                DamagedLedgers.assertWhole(store, done, context);
              }
              for (int i = 0; i < LEDGERS; i++) {
                assertThat(store.repair(DamagedLedgers.root(i)).revision()).as(context)
                    .isEqualTo(DamagedLedgers.COMMITS);
              }
              assertThat(store.verify().findings()).as(context)
                  .allMatch(f -> !f.kind().damage());
              for (int i = 0; i < LEDGERS; i++) {
                DamagedLedgers.assertWhole(store, DamagedLedgers.root(i), context);
              }
            }
          });
    }
    System.out.printf("repair under faults at %s: %d power cuts and I/O errors%n", op, faults);
  }
}
