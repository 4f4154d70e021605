package dev.ledger.core.fs;

import dev.ledger.core.CommitResult;
import dev.ledger.core.LedgerHead;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.spi.PatchLog;
import dev.ledger.testing.base.ChildJvm;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;

/**
 * Child main for {@link PatchLogCrashTest}: commits {@link PatchFixture} patches to one ledger
 * through its patch log in batches of 1 to 4 (group commits), in an endless loop until it is
 * killed, checkpointing its state every 7 batches. After each acknowledged batch it appends
 * {@code ACK <last revision>} to the acknowledgement file (a write the kernel keeps when the
 * process is killed) and prints the same line, so the parent knows exactly what was
 * acknowledged.
 *
 * <p>Arguments: store directory, acknowledgement file.
 */
public final class PatchCommitter {
  private PatchCommitter() {}

  static LedgerOptions options() {
    return LedgerOptions.defaults()
        .withCheckpointInterval(5)
        .withSegmentBytes(4096)
        .withLockTimeout(Duration.ofSeconds(30));
  }

  public static void main(String[] args) throws IOException {
    ChildJvm.exitWhenParentGoes();
    try (FileLedgerStore store = FileLedgerStore.open(Path.of(args[0]), options());
        FileChannel acks = FileChannel.open(Path.of(args[1]), StandardOpenOption.CREATE,
            StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      PatchLog log = store.patchLog(PatchFixture.ROOT);
      long revision = store.head(PatchFixture.ROOT).map(LedgerHead::revision).orElse(0L);
      long batches = 0;
      while (true) {
        long last = revision + 1 + (revision % 4);
        List<CommitResult> results = log.commitPatches(PatchFixture.requests(revision + 1,
            last));
        if (results.get(results.size() - 1).revision() != last) {
          throw new IllegalStateException("expected revision " + last + ", got " + results);
        }
        String line = "ACK " + last + "\n";
        acks.write(ByteBuffer.wrap(line.getBytes(StandardCharsets.US_ASCII)));
        System.out.print(line);
        System.out.flush();
        revision = last;
        if (++batches % 7 == 0) {
          log.checkpoint(revision, PatchFixture.state(revision), 0);
        }
      }
    } catch (RuntimeException | Error e) {
      e.printStackTrace();
      System.exit(1);
    }
  }
}
