package dev.ledger.bench;

import dev.ledger.core.VerifyReport;
import dev.ledger.core.fs.FileLedgerStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;

/**
 * Scenario 8: {@code verify()} of the long history ledger (every line's checksum, the state
 * folded from the journal and compared with the checkpoint, the command index), next to a raw
 * read of the same journal files in this JVM that only counts newlines.
 */
final class VerifyScenario {
  static final String NAME = "8. Verify";

  private VerifyScenario() {}

  static void run(BenchConfig config, History history, Report report) throws IOException {
    String root = History.rootId(config.longHistory());
    Path journal = history.base.resolve("ledgers").resolve(root).resolve("journal");
    Stats verify = report.stats(NAME, String.format("verify of the %,d-event ledger, journal "
        + "bytes", config.longHistory()), "MB/s");
    Stats raw = report.stats(NAME, "raw read of the same journal files", "MB/s");
    Stats paired = new Stats();
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(history.base)) {
      for (int round = 0; round <= config.rounds(); round++) {
        // The raw read goes first in odd rounds, so that neither side always follows the other.
        boolean rawFirst = round % 2 == 1;
        long[] rawRead = rawFirst ? timedRawRead(journal) : null;
        long t0 = System.nanoTime();
        VerifyReport result = store.verify(root, p -> { });
        long verifyNanos = System.nanoTime() - t0;
        if (!result.clean() || result.bytes() == 0) {
          throw new IllegalStateException("verify of a sound ledger reported " + result);
        }
        if (!rawFirst) {
          rawRead = timedRawRead(journal);
        }
        if (round > 0) {
          double verifyRate = result.bytes() / 1e6 * 1e9 / verifyNanos;
          double rawRate = rawRead[0] / 1e6 * 1e9 / rawRead[1];
          verify.add(verifyRate);
          raw.add(rawRate);
          paired.add(verifyRate / rawRate);
        }
      }
    }
    report.ratio(NAME, "verify MB/s / raw read MB/s", verify, raw, Report.Goal.AT_LEAST, 0.3);
    report.ratio(NAME, "verify MB/s / raw read MB/s of the same round (median of rounds)",
        paired.median(), Report.Goal.REPORT, 0, "each verify next to its own raw read");
    report.note("Verify and the raw read both run from the page cache; the raw read counts "
        + "newlines in 64 KiB buffers, verify decodes and folds every record. The raw read runs "
        + "after verify in even rounds and before it in odd ones; the judged ratio is of the "
        + "two medians, and the ratio within each round is reported beside it.");
  }

  /** {@link #rawRead}: the bytes read and the wall nanoseconds it took. */
  private static long[] timedRawRead(Path journal) throws IOException {
    long t0 = System.nanoTime();
    long bytes = rawRead(journal);
    return new long[] {bytes, System.nanoTime() - t0};
  }

  /** Reads every segment through 64 KiB buffers, counting newlines; returns the bytes read. */
  private static long rawRead(Path journal) throws IOException {
    List<Path> segments;
    try (Stream<Path> list = Files.list(journal)) {
      segments = list.sorted().toList();
    }
    long bytes = 0;
    long lines = 0;
    ByteBuffer buffer = ByteBuffer.allocateDirect(64 * 1024);
    byte[] chunk = new byte[64 * 1024];
    for (Path segment : segments) {
      try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.READ)) {
        int n;
        while ((n = ch.read(buffer.clear())) > 0) {
          buffer.flip().get(chunk, 0, n);
          for (int i = 0; i < n; i++) {
            if (chunk[i] == '\n') {
              lines++;
            }
          }
          bytes += n;
        }
      }
    }
    if (lines == 0) {
      throw new IllegalStateException("no journal lines in " + journal);
    }
    return bytes;
  }
}
