package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.core.RepairResult;
import dev.ledger.testing.base.ChildJvm;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Repair against real SIGKILLs: a child JVM ({@link RepairChild}) repairs the ledgers of a
 * {@link DamagedLedgers} store one after another and is killed at a seeded random moment.
 * After each kill the store opens; the journals are byte for byte as before (no acknowledged
 * commit can be missing); {@code verify()} finds no damage that was not there before the
 * repair, and none at all in a ledger whose repair returned, which is whole; and a repair run
 * again completes, after which the store verifies clean and every ledger is whole (every
 * commit loads, every command replays).
 *
 * <p>Kills: 5 times {@code ledger.torture.scale} (default 1).
 */
@ExtendWith(SeedExtension.class)
class RepairCrashTest {
  private static final int LEDGERS = 4;
  private static final int KILLS = 5;
  private static final Duration DEADLINE = Duration.ofSeconds(60);

  @TempDir
  static Path shared;
  private static Path template;
  private static Set<String> damageBefore;

  @TempDir
  Path dir;

  @BeforeAll
  static void writeTemplate() {
    template = shared.resolve("template");
    DamagedLedgers.write(template, LEDGERS);
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(template)) {
      damageBefore = DamagedLedgers.damage(store, template);
    }
    assertThat(damageBefore).as("the odd ledgers are damaged").isNotEmpty();
  }

  @Test
  void aKilledRepairLeavesNoNewDamageAndRepairingAgainCompletes(TestSeed seed)
      throws Exception {
    Random random = seed.random();
    int kills = KILLS * Integer.getInteger("ledger.torture.scale", 1);
    int midLedger = 0;
    for (int round = 0; round < kills; round++) {
      Path base = dir.resolve("store-" + round);
      DamagedLedgers.copy(template, base);
      Map<String, String> journals = DamagedLedgers.journals(base, LEDGERS);
      List<String> lines;
      try (ChildJvm child = ChildJvm.start(RepairChild.class, base.toString(),
          Integer.toString(LEDGERS))) {
        int wanted = 1 + random.nextInt(2 * LEDGERS);
        assertThat(child.awaitLines(l -> l.size() >= wanted, DEADLINE))
            .as("%d lines from %s", wanted, child.describe()).isTrue();
        LockSupport.parkNanos(random.nextInt((int) TimeUnit.MILLISECONDS.toNanos(4)));
        child.kill();
        lines = child.lines();
      }
      String context = "kill " + round + " (" + seed + "), the child said "
          + lines.subList(Math.max(0, lines.size() - 3), lines.size());
      Set<String> repaired = new HashSet<>();
      Set<String> started = new HashSet<>();
      for (String line : lines) {
        if (line.startsWith("REPAIRED ")) {
          repaired.add(line.split(" ")[1]);
        } else if (line.startsWith("REPAIRING ")) {
          started.add(line.split(" ")[1]);
        }
      }
      if (started.size() > repaired.size()) {
        midLedger++;
      }
      assertThat(DamagedLedgers.journals(base, LEDGERS)).as("%s: journals", context)
          .isEqualTo(journals);
      try (FileLedgerStore store = FileLedgerStore.open(base, AckingCommitter.options())) {
        Set<String> damage = DamagedLedgers.damage(store, base);
        assertThat(damageBefore).as("%s: damage after the kill is old damage", context)
            .containsAll(damage);
        for (String root : repaired) {
          assertThat(damage).as(context).noneMatch(d -> d.contains(" " + root + " "));
          DamagedLedgers.assertWhole(store, root, context);
        }
        for (int i = 0; i < LEDGERS; i++) {
          RepairResult again = store.repair(DamagedLedgers.root(i));
          assertThat(again.revision()).as(context).isEqualTo(DamagedLedgers.COMMITS);
          if (repaired.contains(DamagedLedgers.root(i))) {
            assertThat(again.changed()).as("%s: %s repaired before", context,
                DamagedLedgers.root(i)).isFalse();
          }
        }
        assertThat(store.verify().findings()).as(context)
            .allMatch(f -> !f.kind().damage());
        for (int i = 0; i < LEDGERS; i++) {
          DamagedLedgers.assertWhole(store, DamagedLedgers.root(i), context);
        }
      }
      assertThat(DamagedLedgers.journals(base, LEDGERS)).as("%s: journals", context)
          .isEqualTo(journals);
    }
    System.out.printf("repair kill loop: %d SIGKILLs over %d damaged ledgers, %d inside a "
        + "ledger's repair (%s)%n", kills, LEDGERS, midLedger, seed);
  }
}
