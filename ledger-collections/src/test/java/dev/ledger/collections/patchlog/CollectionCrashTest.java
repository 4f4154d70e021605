package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.collections.TransactionResult;
import dev.ledger.core.VerifyReport;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.testing.base.ChildJvm;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two child JVMs ({@link CollectionWriter}) run collection transactions on one partition of
 * a file store, racing each other, and are killed with SIGKILL at random moments (often inside
 * a commit, a catch-up after the other's commit, or a checkpoint). After each round of kills,
 * a fresh process view of the partition must show:
 * <ul>
 *   <li>every acknowledged transaction, and of each writer at most the one step it had in
 *       flight beyond them, whole (its entry, mark, queue items and counters) or not at
 *       all;</li>
 *   <li>every item enqueued either still queued or taken by exactly one step, the items an
 *       acknowledged step took recorded as taken by that step, and no item taken twice;</li>
 *   <li>counters equal to the sum of the steps' increments;</li>
 *   <li>a clean {@code verify}, and each writer's last step's command answered as a
 *       replay.</li>
 * </ul>
 *
 * <p>Rounds per run: 4 times {@code ledger.torture.scale}; the kill moments come from the
 * printed seed ({@code -Dledger.seed} replays the choices, the timing stays the OS's).
 */
@ExtendWith(SeedExtension.class)
class CollectionCrashTest {
  private static final int ROUNDS = 4;
  private static final int MAX_ACKS_BEFORE_KILL = 25;
  private static final Duration ACK_DEADLINE = Duration.ofSeconds(60);
  private static final List<String> WRITERS = List.of("a", "b");

  @TempDir
  Path dir;

  /** Per writer, its last acknowledged step. */
  private final Map<String, Long> acked = new LinkedHashMap<>();
  /** Per acknowledged step id, the items it took. */
  private final Map<String, List<String>> ackedTook = new HashMap<>();

  @Test
  void killedWritersLoseNoAcknowledgedTransactionAndShowNoPartialOne(TestSeed seed)
      throws Exception {
    int rounds = ROUNDS * Integer.getInteger("ledger.torture.scale", 1);
    Random random = seed.random();
    Path base = dir.resolve("store");
    WRITERS.forEach(w -> acked.put(w, 0L));
    long steps = 0;
    for (int round = 1; round <= rounds; round++) {
      String context = "round " + round + " of " + rounds + ", " + seed;
      try {
        runAndKill(base, random, context);
        steps = checkRecovered(base, context);
      } catch (Exception | AssertionError e) {
        throw new AssertionError(context + ": " + e, e);
      }
    }
    System.out.printf("collection crash test: %d rounds of 2 SIGKILLs, %d acknowledged "
        + "transactions, %d committed, 0 lost or partial (%s)%n", rounds,
        acked.values().stream().mapToLong(Long::longValue).sum(), steps, seed);
  }

  /** Runs both writers, kills them in a random order, reads their acknowledgements. */
  private void runAndKill(Path base, Random random, String context) throws Exception {
    Map<String, ChildJvm> children = new LinkedHashMap<>();
    try {
      for (String w : WRITERS) {
        Path ackFile = ackFile(w);
        Files.deleteIfExists(ackFile);
        children.put(w, ChildJvm.start(CollectionWriter.class, base.toString(), w,
            ackFile.toString()));
      }
      List<String> order = new ArrayList<>(WRITERS);
      if (random.nextBoolean()) {
        java.util.Collections.reverse(order);
      }
      for (String w : order) {
        int killAfter = 1 + random.nextInt(MAX_ACKS_BEFORE_KILL);
        ChildJvm child = children.get(w);
        boolean reached = child.awaitLines(lines -> lines.size() >= killAfter, ACK_DEADLINE);
        assertThat(reached).as("%s ACKs within %s from %s", killAfter, ACK_DEADLINE,
            child.describe()).isTrue();
        LockSupport.parkNanos(random.nextInt((int) TimeUnit.MILLISECONDS.toNanos(3)));
        child.kill();
      }
    } finally {
      for (ChildJvm child : children.values()) {
        child.close();
      }
    }
    for (String w : WRITERS) {
      readAcks(w, context);
    }
  }

  private Path ackFile(String writer) {
    return dir.resolve("acks-" + writer + ".txt");
  }

  /**
   * Reads a killed writer's acknowledgements: consecutive steps that start right after the
   * previous round's last acknowledged step, or one later (a step committed, unacknowledged,
   * before the previous kill).
   */
  private void readAcks(String writer, String context) throws IOException {
    long previous = acked.get(writer);
    long expected = -1;
    for (String line : Files.readAllLines(ackFile(writer), StandardCharsets.US_ASCII)) {
      String[] parts = line.split(" ", -1);
      assertThat(parts).as("%s: ack line '%s' of %s", context, line, writer).hasSize(3);
      assertThat(parts[0]).isEqualTo("ACK");
      long step = Long.parseLong(parts[1]);
      if (expected < 0) {
        assertThat(step).as("%s: first step of %s this round", context, writer)
            .isBetween(previous + 1, previous + 2);
      } else {
        assertThat(step).as("%s: steps of %s", context, writer).isEqualTo(expected);
      }
      expected = step + 1;
      ackedTook.put(TxFixture.id(writer, step),
          parts[2].isEmpty() ? List.of() : List.of(parts[2].split(",")));
      acked.put(writer, step);
    }
    assertThat(expected).as("%s: %s acknowledged nothing", context, writer).isPositive();
  }

  /** Opens the store as a restarted process would, checks it; returns the steps it holds. */
  private long checkRecovered(Path base, String context) {
    try (FileLedgerStore store = FileLedgerStore.open(base, TxFixture.ledgerOptions())) {
      VerifyReport report = store.verify();
      assertThat(report.clean()).as("%s: %s", context, report).isTrue();
      PatchLogCollectionStore db = PatchLogCollectionStore.on(store, TxFixture.SCHEMA,
          TxFixture.collectionOptions());
      TxFixture.Snapshot snapshot = TxFixture.snapshot(db, WRITERS);
      Map<String, Long> last = new LinkedHashMap<>();
      for (String w : WRITERS) {
        long held = snapshot.counters().getOrDefault("last:" + w, 0L);
        assertThat(held).as("%s: last step of %s, acknowledged up to %s", context, w,
            acked.get(w)).isBetween(acked.get(w), acked.get(w) + 1);
        last.put(w, held);
      }
      TxFixture.checkConsistent(snapshot, last, context);
      for (Map.Entry<String, List<String>> ack : ackedTook.entrySet()) {
        assertThat(snapshot.entries().get(ack.getKey()).took())
            .as("%s: items taken by acknowledged step %s", context, ack.getKey())
            .containsExactlyElementsOf(ack.getValue());
      }
      for (String w : WRITERS) {
        long step = last.get(w);
        TransactionResult<Object> retry = db.execute(TxFixture.PARTITION,
            TxFixture.commandId(w, step), tx -> {
              throw new AssertionError("a committed command ran again: step " + step);
            });
        assertThat(retry.replayed()).as("%s: retry of step %s of %s", context, step, w)
            .isTrue();
      }
      assertThat(store.head(TxFixture.PARTITION).orElseThrow().revision())
          .as("%s: the retries wrote nothing", context).isEqualTo(snapshot.revision());
      return last.values().stream().mapToLong(Long::longValue).sum();
    }
  }
}
