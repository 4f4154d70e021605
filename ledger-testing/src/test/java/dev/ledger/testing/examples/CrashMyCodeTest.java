package dev.ledger.testing.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.core.LedgerStore;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.testing.fault.FaultLoop;
import dev.ledger.testing.fault.Op;
import dev.ledger.testing.fault.Persistence;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The worked example of README's "Testing your code with ledger": a user's code (the
 * {@link Tally}) crashed by a power cut, or failed by an I/O error, at every operation of a
 * kind in turn; after each, the reopened store must hold every add that returned. The first
 * test is the README's snippet.
 */
class CrashMyCodeTest {
  @TempDir
  Path tmp;

  // README: crash-my-code begin
  @Test
  void everyAcknowledgedAddSurvivesAPowerCutAtAnyForce() {
    AtomicInteger acknowledged = new AtomicInteger();
    int cuts = FaultLoop.powerCutAt(Op.FORCE).run(tmp,
        root -> {                                    // your code, on the faulty disk
          acknowledged.set(0);
          try (LedgerStore store = FileLedgerStore.open(root.resolve("store"))) {
            Tally tally = new Tally(store);
            for (int i = 1; i <= 5; i++) {
              tally.add("item-" + i);
              acknowledged.set(i);                   // add returned: it must survive
            }
          }
        },
        (root, fault) -> {                           // after the cut: reopen and check
          try (LedgerStore store = FileLedgerStore.open(root.resolve("store"))) {
            assertThat(new Tally(store).count()).as("%s", fault)
                .isBetween((long) acknowledged.get(), acknowledged.get() + 1L);
          }
        });
    assertThat(cuts).isGreaterThanOrEqualTo(5);      // one run per force the code made
  }
  // README: crash-my-code end

  @ParameterizedTest
  @EnumSource(value = Op.class, names = {"WRITE", "FORCE", "MOVE", "CREATE"})
  void everyAcknowledgedAddSurvivesAnIoErrorAtAnyOperation(Op op) {
    AtomicInteger acknowledged = new AtomicInteger();
    int faults = FaultLoop.ioErrorAt(op, Persistence.TRANSIENT).run(tmp,
        root -> {
          acknowledged.set(0);
          try (LedgerStore store = FileLedgerStore.open(root.resolve("store"))) {
            Tally tally = new Tally(store);
            for (int i = 1; i <= 5; i++) {
              tally.add("item-" + i);
              acknowledged.set(i);
            }
          }
        },
        (root, fault) -> {
          try (LedgerStore store = FileLedgerStore.open(root.resolve("store"))) {
            Tally tally = new Tally(store);
            long count = tally.count();
            assertThat(count).as("%s", fault)
                .isBetween((long) acknowledged.get(), acknowledged.get() + 1L);
            // The store takes the next add after the error.
            tally.add("after-the-error");
            assertThat(tally.count()).isEqualTo(count + 1);
          }
        });
    assertThat(faults).isPositive();
  }
}
