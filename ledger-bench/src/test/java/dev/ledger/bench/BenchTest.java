package dev.ledger.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The smallest configuration runs every scenario and renders a table; no timing is judged. */
class BenchTest {
  @TempDir Path dir;

  @Test
  void smokeConfigurationRunsEveryScenarioAndPrintsATable() throws Exception {
    String md = Bench.run(BenchConfig.smoke(dir.resolve("data")), "smoke");

    System.out.println(md);
    assertThat(md).contains("| measurement | median | min | max | unit | rounds |",
        "### Ratios (of medians, same run) and targets", "ledger / floor",
        "ledger / SQLite FULL", "page near the end / page at the start", "put / SHA-256",
        "verify MB/s / raw read MB/s", "verify MB/s / raw read MB/s of the same round",
        "random ledger / hot ledger commits/s",
        "in-process median latency, ms", "cold / warm: ledger (FileLedgerStore, SYNC)",
        "as after a kill", "journal_mode=wal, synchronous=2 (FULL)",
        "put / the slower of SHA-256 and copy + one force",
        "replay MB/s, second pass / raw read MB/s", "file system of the stores: ");
    for (int scenario : new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13}) {
      assertThat(md).contains("### " + scenario + ". ");
    }
  }
}
