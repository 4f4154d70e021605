package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.core.RepairResult;
import dev.ledger.core.VerifyReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The "Verify and repair" sample of the README, compiled and run. */
class VerifyAndRepairSnippetTest {
  @TempDir
  Path dir;

  /** The README sample, verbatim between the markers. */
  static boolean verifyAndRepair(Path base) {
    // README: verify-and-repair begin
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
    // README: verify-and-repair end
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(base)) {
      return store.verify().findings().isEmpty();
    }
  }

  @Test
  void theSampleVerifiesAndRepairs() throws IOException {
    VerifyFixture.commit(dir, VerifyFixture.OPTIONS, "run-1", 5);
    Files.delete(VerifyFixture.commandEntries(dir, "run-1").get(0));
    assertThat(verifyAndRepair(dir)).isTrue();
  }
}
