package dev.ledger.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.Ledger;
import dev.ledger.core.fs.FileLedgerStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Scenario 4: a ~1 MiB state with one field changed per commit. Bytes written per commit are
 * counted two ways: the files' growth (journal and command index) plus every
 * {@code state.json} checkpoint written (seen as a new file behind the name), and the
 * process's {@code write_bytes} (page-granular, what the kernel sent or will send to disk).
 */
final class LargeStateScenario {
  static final String NAME = "4. Large state, small change";

  private LargeStateScenario() {}

  static void run(BenchConfig config, Report report) throws Exception {
    Path base = config.dir().resolve("s4");
    Path ledgerDir = base.resolve("ledgers").resolve("large");
    Stats rate = report.stats(NAME, "ledger, commits", "commits/s");
    Stats fileBytes = report.stats(NAME, "bytes written per commit (file growth + checkpoints)",
        "bytes");
    Stats ioBytes = report.stats(NAME, "bytes written per commit (process write_bytes)",
        "bytes");
    Stats checkpointSize = report.stats(NAME, "state.json size", "bytes");
    ObjectNode state = Workload.JSON.createObjectNode();
    String field = Workload.filler(1000);
    for (int i = 0; state.size() * 1010L < config.largeStateBytes(); i++) {
      state.put(String.format("f%05d", i), field);
    }
    state.put("counter", 0);
    try (FileLedgerStore store = FileLedgerStore.open(base)) {
      Ledger<JsonNode> ledger = store.ledger("large", JsonNode.class);
      long revision = ledger.commit(Ledger.NO_REVISION, state.deepCopy(), Workload.event(0))
          .revision();
      long counter = 0;
      for (int round = 0; round <= config.rounds(); round++) {
        long sizeBefore = ScratchFiles.size(ledgerDir.resolve("journal"))
            + ScratchFiles.size(ledgerDir.resolve("commands"));
        long ioBefore = ScratchFiles.processWriteBytes();
        long checkpointBytes = 0;
        Object key = fileKey(ledgerDir.resolve("state.json"));
        long t0 = System.nanoTime();
        for (int i = 0; i < config.largeStateCommits(); i++) {
          counter++;
          ObjectNode next = state.deepCopy();
          next.put("counter", counter);
          revision = ledger.commit(revision, next, Workload.event(counter)).revision();
          Object now = fileKey(ledgerDir.resolve("state.json"));
          if (now != null && !Objects.equals(now, key)) {
            checkpointBytes += Files.size(ledgerDir.resolve("state.json"));
            key = now;
          }
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        long ioAfter = ScratchFiles.processWriteBytes();
        long sizeAfter = ScratchFiles.size(ledgerDir.resolve("journal"))
            + ScratchFiles.size(ledgerDir.resolve("commands"));
        if (round > 0) {
          int n = config.largeStateCommits();
          rate.add(n / seconds);
          fileBytes.add((double) (sizeAfter - sizeBefore + checkpointBytes) / n);
          if (ioBefore >= 0) {
            ioBytes.add((double) (ioAfter - ioBefore) / n);
          }
          if (Files.exists(ledgerDir.resolve("state.json"))) {
            checkpointSize.add(Files.size(ledgerDir.resolve("state.json")));
          }
        }
      }
    }
    report.ratio(NAME, "bytes per commit (files) / 8 KiB", fileBytes.median() / 8192,
        Report.Goal.AT_MOST, 1.0, String.format("%,.0f bytes", fileBytes.median()));
    report.ratio(NAME, "bytes per commit (write_bytes) / 8 KiB", ioBytes.median() / 8192,
        Report.Goal.REPORT, 0, String.format("%,.0f bytes", ioBytes.median()));
    report.note(String.format("Large state: %,d fields of 1,000 characters, one small field "
        + "changed per commit, %d commits per round, default checkpoint interval.",
        state.size() - 1, config.largeStateCommits()));
  }

  private static Object fileKey(Path file) throws java.io.IOException {
    if (!Files.exists(file)) {
      return null;
    }
    return Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class)
        .fileKey();
  }
}
