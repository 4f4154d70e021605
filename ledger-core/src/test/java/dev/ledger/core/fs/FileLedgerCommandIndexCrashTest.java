package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.core.CommitResult;
import dev.ledger.core.Ledger;
import dev.ledger.core.fs.AckingCommitter.Tick;
import dev.ledger.testing.base.ChildJvm;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Promise 4 across crashes with two writers: a writer whose view is stale catches up over
 * the other's commits and, at its checkpoint, meets command index entries that the other
 * writer's checkpoint already covers. Killed with SIGKILL anywhere in there, it must leave
 * every acknowledged command retryable, as {@code state.json} no longer leads a restarted
 * writer to those commands' journal records.
 *
 * <p>The kill is aimed at the checkpoint of the second commit of the stale writer in a child's
 * life (its first with a stale view): once that commit's record shows in the journal (read
 * without a lock), a random 0 to 5 ms later; most kills land in that checkpoint. Against the
 * code that truncated covered entries to rewrite them, runs at scale 1 failed at the second
 * kill; {@link CommandIndexTest} checks the mechanism deterministically. Kills per run: 3
 * times {@code ledger.torture.scale}; seeded as in {@link FileLedgerCrashTest}.
 */
@ExtendWith(SeedExtension.class)
class FileLedgerCommandIndexCrashTest {
  private static final String ROOT = "commands";
  private static final int KILLS = 3;
  private static final Duration ACK_DEADLINE = Duration.ofSeconds(60);

  @TempDir
  Path dir;

  @Test
  void killingAStaleWriterInItsCheckpointKeepsEveryAcknowledgedCommandRetryable(TestSeed seed)
      throws Exception {
    int kills = KILLS * Integer.getInteger("ledger.torture.scale", 1);
    Random random = seed.random();
    Path base = dir.resolve("store");
    List<Long> acknowledged = new ArrayList<>();
    for (int round = 1; round <= kills; round++) {
      String context = "kill " + round + " of " + kills + ", " + seed;
      long delayNanos = random.nextInt((int) TimeUnit.MILLISECONDS.toNanos(5));
      List<Long> acks = new ArrayList<>();
      try (ChildJvm child = ChildJvm.start(TwoWriterCommitter.class, base.toString(), ROOT);
          FileLedgerStore watcher = FileLedgerStore.open(base, TwoWriterCommitter.options())) {
        assertThat(child.awaitLines(lines -> stale(lines).size() >= 2, ACK_DEADLINE))
            .as("%s: second stale commit from %s", context, child.describe()).isTrue();
        // Once its record is in the journal, the stale writer is in its checkpoint.
        awaitRevision(watcher.ledger(ROOT, Tick.class), stale(child.lines()).get(1), context);
        LockSupport.parkNanos(delayNanos);
        child.kill();
        for (String line : child.lines()) {
          if (line.startsWith("ACK ")) {
            acks.add(Long.parseLong(line.split(" ")[1]));
          }
        }
      }
      acknowledged.addAll(acks);
      // Only this child's commits can have been damaged by this kill.
      assertRetriesReplay(base, acks, context);
    }
    assertRetriesReplay(base, acknowledged, "all kills, " + seed);
    System.out.printf("stale-writer crash test: %d SIGKILLs survived, %d acknowledged commands "
        + "retried, 0 lost (%s)%n", kills, acknowledged.size(), seed);
  }

  /** The revisions of the stale writer's commits the child announced. */
  private static List<Long> stale(List<String> lines) {
    return lines.stream().filter(line -> line.startsWith("STALE "))
        .map(line -> Long.parseLong(line.substring("STALE ".length()))).toList();
  }

  /** Waits (reading without a lock, with a deadline) until the ledger has {@code revision}. */
  private static void awaitRevision(Ledger<Tick> ledger, long revision, String context) {
    long deadline = System.nanoTime() + ACK_DEADLINE.toNanos();
    while (ledger.load().revision() < revision) {
      assertThat(System.nanoTime()).as("%s: revision %s within %s", context, revision,
          ACK_DEADLINE).isLessThan(deadline);
      Thread.onSpinWait();
    }
  }

  private static void assertRetriesReplay(Path base, List<Long> acks, String context) {
    try (FileLedgerStore store = FileLedgerStore.open(base, TwoWriterCommitter.options())) {
      Ledger<Tick> ledger = store.ledger(ROOT, Tick.class);
      assertThat(ledger.load().revision()).as(context)
          .isGreaterThanOrEqualTo(acks.get(acks.size() - 1));
      for (long ack : acks) {
        CommitResult retry;
        try {
          retry = ledger.commit(ack - 1, AckingCommitter.state(ack), AckingCommitter.events(ack));
        } catch (RuntimeException e) {
          throw new AssertionError(context + ": retrying the command of revision " + ack
              + " failed", e);
        }
        assertThat(retry.replayed()).as("%s: retry of revision %s replayed", context, ack)
            .isTrue();
        assertThat(retry.revision()).as(context).isEqualTo(ack);
      }
    }
  }
}
