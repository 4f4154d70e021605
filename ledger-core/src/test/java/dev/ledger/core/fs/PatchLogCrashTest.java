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
import dev.ledger.core.VerifyReport;
import dev.ledger.core.Versioned;
import dev.ledger.core.spi.PatchLog;
import dev.ledger.testing.base.ChildJvm;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A child JVM commits patch batches through a patch log ({@link PatchCommitter}) and is
 * killed with SIGKILL at a random moment (often inside a batch's write or force, a caller
 * checkpoint or a segment roll); after each kill no acknowledged commit is lost, the ledger
 * holds whole commits only, verifies clean, replays retried commands, and takes new commits.
 *
 * <p>Kills per run: 5 times {@code ledger.torture.scale}; the kill moments come from the
 * printed seed ({@code -Dledger.seed} replays the choices, the timing stays the OS's).
 */
@ExtendWith(SeedExtension.class)
class PatchLogCrashTest {
  private static final int KILLS = 5;
  private static final int MAX_ACKS_BEFORE_KILL = 60;
  private static final Duration ACK_DEADLINE = Duration.ofSeconds(60);

  @TempDir
  Path dir;

  @Test
  void killedPatchWriterLosesNoAcknowledgedCommit(TestSeed seed) throws Exception {
    int kills = KILLS * Integer.getInteger("ledger.torture.scale", 1);
    Random random = seed.random();
    Path base = dir.resolve("store");
    Path ackFile = dir.resolve("acks.txt");
    long revision = 0;
    long acknowledged = 0;
    for (int round = 1; round <= kills; round++) {
      String context = "kill " + round + " of " + kills + ", " + seed;
      try {
        long lastAck = runAndKill(base, ackFile, revision, random);
        acknowledged += lastAck - revision;
        revision = checkRecovered(base, lastAck, context + ", last ACK " + lastAck);
      } catch (Exception | AssertionError e) {
        throw new AssertionError(context + ": " + e, e);
      }
    }
    System.out.printf("patch log crash test: %d SIGKILLs, %d acknowledged commits, 0 lost (%s)%n",
        kills, acknowledged, seed);
  }

  /** Runs a committer from {@code revision}, kills it, returns its last acknowledged one. */
  private static long runAndKill(Path base, Path ackFile, long revision, Random random)
      throws InterruptedException, IOException {
    int killAfter = 1 + random.nextInt(MAX_ACKS_BEFORE_KILL);
    long delayNanos = random.nextInt((int) TimeUnit.MILLISECONDS.toNanos(3));
    Files.deleteIfExists(ackFile);
    try (ChildJvm child = ChildJvm.start(PatchCommitter.class, base.toString(),
        ackFile.toString())) {
      boolean acked = child.awaitLines(lines -> lines.size() >= killAfter, ACK_DEADLINE);
      assertThat(acked).as("%s ACKs within %s from %s", killAfter, ACK_DEADLINE,
          child.describe()).isTrue();
      LockSupport.parkNanos(delayNanos);
      child.kill();
      List<Long> acks = new ArrayList<>();
      for (String line : Files.readAllLines(ackFile, StandardCharsets.US_ASCII)) {
        String[] parts = line.split(" ");
        assertThat(parts).as("ack line '%s'", line).hasSize(2);
        assertThat(parts[0]).isEqualTo("ACK");
        acks.add(Long.parseLong(parts[1]));
      }
      assertThat(acks).as("acknowledged batches of %s", child.describe())
          .hasSizeGreaterThanOrEqualTo(killAfter).isSorted().doesNotHaveDuplicates();
      assertThat(acks.get(0)).isGreaterThan(revision);
      return acks.get(acks.size() - 1);
    }
  }

  /** Reopens the store after a kill, checks it, commits a batch itself; returns the head. */
  private static long checkRecovered(Path base, long lastAck, String context) {
    try (FileLedgerStore store = FileLedgerStore.open(base, PatchCommitter.options())) {
      VerifyReport report = store.verify();
      assertThat(report.clean()).as("%s: %s", context, report).isTrue();
      Ledger<JsonNode> ledger = store.ledger(ROOT, JsonNode.class);
      Versioned<JsonNode> current = ledger.load();
      long revision = current.revision();
      assertThat(revision).as(context).isGreaterThanOrEqualTo(lastAck);
      // At most the batch in flight beyond the last ACK: 4 commits.
      assertThat(revision).as(context).isLessThanOrEqualTo(lastAck + 4);
      assertThat(current.state()).as(context).isEqualTo(state(revision));
      try (Stream<Event> events = ledger.replay(Cursor.START)) {
        assertThat(events.map(e -> e.payload().get("revision").asLong()).toList())
            .as(context).containsExactlyElementsOf(LongStream.rangeClosed(1, revision)
                .boxed().toList());
      }
      PatchLog log = store.patchLog(ROOT);
      CommitResult retry = log.commitPatch(request(lastAck));
      assertThat(retry.replayed()).as(context).isTrue();
      assertThat(retry.revision()).as(context).isEqualTo(lastAck);
      List<CommitResult> next = log.commitPatches(requests(revision + 1, revision + 2));
      assertThat(next.get(1).revision()).as(context).isEqualTo(revision + 2);
      assertThat(ledger.load().state()).as(context).isEqualTo(state(revision + 2));
      return revision + 2;
    }
  }
}
