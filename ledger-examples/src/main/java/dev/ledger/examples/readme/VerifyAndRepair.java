package dev.ledger.examples.readme;

import dev.ledger.core.RepairResult;
import dev.ledger.core.VerifyReport;
import dev.ledger.core.fs.FileLedgerStore;
import java.nio.file.Path;

/** The README's "Verify and repair" snippet, compiled here and run by its test. */
public final class VerifyAndRepair {
  private VerifyAndRepair() {}

  /**
   * Verifies the store in {@code base}, printing progress and findings, then repairs the
   * derived files (checkpoint, command index) of ledger {@code run-1}.
   *
   * @param base a store directory holding a ledger {@code run-1}
   * @throws dev.ledger.core.UnrepairableLedgerException if run-1's journal is damaged
   */
  public static void verifyThenRepair(Path base) {
    // README:begin verify
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(base)) {
      VerifyReport report = store.verify(p -> System.err.printf("%s: %,d of %,d bytes%n",
          p.rootId(), p.bytesDone(), p.bytesTotal()));
      report.findings().forEach(System.err::println); // ledger, file, offset, expected/actual
      System.out.printf("%d ledgers, %d records, %d events: %s%n", report.ledgers(),
          report.records(), report.events(), report.clean() ? "clean" : "DAMAGED");
    }
    // verify named a missing or damaged state.json or command index entry of run-1:
    try (FileLedgerStore store = FileLedgerStore.open(base)) {
      RepairResult repaired = store.repair("run-1"); // refuses if the journal is damaged
      System.out.println("run-1 is at revision " + repaired.revision());
    }
    // README:end
  }
}
