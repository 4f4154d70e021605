package dev.ledger.core.fs;

import static dev.ledger.core.fs.PatchFixture.ROOT;
import static dev.ledger.core.fs.PatchFixture.request;
import static dev.ledger.core.fs.PatchFixture.requests;
import static dev.ledger.core.fs.PatchFixture.state;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.VerifyReport;
import dev.ledger.core.Versioned;
import dev.ledger.core.spi.PatchLog;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import dev.ledger.testing.fault.FaultLoop;
import dev.ledger.testing.fault.Op;
import dev.ledger.testing.fault.Persistence;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Power cuts and I/O errors at every operation of a patch log writing batches (group
 * commits) and its own checkpoints: after each fault, every acknowledged batch is there, of
 * the batch in flight at most a prefix of whole commits, and the ledger verifies clean and
 * takes new commits. Script length scales with {@code -Dledger.torture.scale}.
 */
@ExtendWith(SeedExtension.class)
class PatchLogFaultTest {
  private static final int SCALE = Integer.getInteger("ledger.torture.scale", 1);
  /** Revisions the script commits. */
  private static final int SCRIPT = 14 * SCALE;
  /** Batch sizes, in turn: singles, and batches that straddle segment rolls. */
  private static final int[] BATCHES = {1, 3, 2, 4};

  @TempDir
  Path diskTmp;

  /** Memory-backed scratch when there is one (see FaultInjectionTest). */
  Path tmp;

  @BeforeEach
  void chooseScratch() throws IOException {
    Path shm = Path.of("/dev/shm");
    tmp = Files.isDirectory(shm) && Files.isWritable(shm)
        ? Files.createTempDirectory(shm, "ledger-patch-faults-") : diskTmp;
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

  private static LedgerOptions options() {
    return LedgerOptions.defaults()
        .withClock(Clock.fixed(Instant.parse("2026-11-30T12:00:00Z"), ZoneOffset.UTC))
        .withCheckpointInterval(3)
        .withSegmentBytes(4096);
  }

  /** The last revision acknowledged, and the last one of the batch in flight. */
  private long acked;
  private long attempted;

  /**
   * Commits revisions 1..SCRIPT in batches, with a caller checkpoint after every third batch,
   * recording each acknowledgement as soon as the batch returns.
   */
  private void script(Path root) {
    acked = 0;
    attempted = 0;
    try (FileLedgerStore store = FileLedgerStore.open(root.resolve("store"), options())) {
      PatchLog log = store.patchLog(ROOT);
      int turn = 0;
      while (acked < SCRIPT) {
        long last = Math.min(SCRIPT, acked + BATCHES[turn % BATCHES.length]);
        attempted = last;
        List<CommitResult> results = log.commitPatches(requests(acked + 1, last));
        assertThat(results.get(results.size() - 1).revision()).isEqualTo(last);
        acked = last;
        if (++turn % 3 == 0) {
          assertThat(log.checkpoint(acked, state(acked), 0)).isTrue();
        }
      }
    }
  }

  /** What a restarted process must find after the fault. */
  private void check(Path root, FaultLoop.Fault fault) {
    String context = fault + ", acknowledged " + acked + ", in flight up to " + attempted;
    try (FileLedgerStore store = FileLedgerStore.open(root.resolve("store"), options())) {
      VerifyReport report = store.verify();
      assertThat(report.clean()).as("%s: %s", context, report).isTrue();
      Ledger<JsonNode> ledger = store.ledger(ROOT, JsonNode.class);
      long revision = ledger.find().map(Versioned::revision).orElse(0L);
      assertThat(revision).as(context).isBetween(acked, Math.max(acked, attempted));
      if (revision > 0) {
        assertThat(ledger.load().state()).as(context).isEqualTo(state(revision));
      }
      try (Stream<Event> events = ledger.replay(Cursor.START)) {
        assertThat(events.map(e -> e.payload().get("revision").asLong()).toList())
            .as(context).containsExactlyElementsOf(java.util.stream.LongStream
                .rangeClosed(1, revision).boxed().toList());
      }
      PatchLog log = store.patchLog(ROOT);
      for (long r = Math.max(1, revision - 4); r <= revision; r++) {
        assertThat(log.commitPatch(request(r)).replayed()).as("%s: retry of %s", context, r)
            .isTrue();
      }
      List<CommitResult> next = log.commitPatches(requests(revision + 1, revision + 2));
      assertThat(next.get(1).revision()).as(context).isEqualTo(revision + 2);
      assertThat(ledger.load().state()).as(context).isEqualTo(state(revision + 2));
      assertThat(store.verify().clean()).as(context).isTrue();
    }
  }

  @ParameterizedTest
  @EnumSource(value = Op.class, names = {"WRITE", "FORCE", "MOVE", "CREATE", "TRUNCATE"})
  void powerCutAtEveryOperationKeepsEveryAcknowledgedBatch(Op op, TestSeed seed) {
    int cuts = FaultLoop.powerCutAt(op).withRandom(seed.random()).run(tmp, this::script,
        this::check);
    System.out.printf("patch log power-cut loop %s: %d cuts (%s)%n", op, cuts, seed);
  }

  @ParameterizedTest
  @EnumSource(value = Op.class, names = {"WRITE", "FORCE", "MOVE"})
  void ioErrorAtEveryOperationKeepsEveryAcknowledgedBatch(Op op) {
    int faults = FaultLoop.ioErrorAt(op, Persistence.PERSISTENT).run(tmp, this::script,
        this::check);
    System.out.printf("patch log I/O error loop %s: %d faults%n", op, faults);
  }
}
