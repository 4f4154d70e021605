package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crashes among racing processes: two committer JVMs race on one ledger (the loser of each
 * revision gets the winner's identical commit replayed), and one of them is SIGKILLed at a
 * random moment while the other goes on, then replaced. The survivors' cached view must cope
 * with whatever the dead one left, and in the end every acknowledged commit of every child is
 * present, the journal is whole, and every acknowledged command replays.
 *
 * <p>Kills per run: 3 times {@code ledger.torture.scale}; seeded as in
 * {@link FileLedgerCrashTest}.
 */
@ExtendWith(SeedExtension.class)
class FileLedgerRacingCrashTest {
  private static final int KILLS = 3;
  private static final int MAX_ACKS_BEFORE_KILL = 100;
  private static final Duration ACK_DEADLINE = Duration.ofSeconds(60);

  @TempDir
  Path dir;

  @Test
  void killingOneOfTwoRacingWritersLosesNoAcknowledgedCommit(TestSeed seed) throws Exception {
    int kills = KILLS * Integer.getInteger("ledger.torture.scale", 1);
    Random random = seed.random();
    Path base = dir.resolve("store");
    String where = seed.toString();
    List<Long> acknowledged = new ArrayList<>();
    ChildJvm[] children = new ChildJvm[2];
    try {
      for (int c = 0; c < children.length; c++) {
        children[c] = start(base);
      }
      for (int round = 1; round <= kills; round++) {
        int victim = random.nextInt(children.length);
        int killAfter = 1 + random.nextInt(MAX_ACKS_BEFORE_KILL);
        ChildJvm child = children[victim];
        assertThat(child.awaitLines(lines -> lines.size() >= killAfter, ACK_DEADLINE))
            .as("kill %s, %s: %s ACKs from %s", round, where, killAfter, child.describe())
            .isTrue();
        LockSupport.parkNanos(random.nextInt((int) TimeUnit.MILLISECONDS.toNanos(3)));
        child.kill();
        acknowledged.addAll(acks(child, where));
        children[victim] = start(base);
      }
      for (ChildJvm child : children) {
        assertThat(child.awaitLines(lines -> !lines.isEmpty(), ACK_DEADLINE))
            .as("%s: an ACK from %s", where, child.describe()).isTrue();
        child.kill();
        acknowledged.addAll(acks(child, where));
      }
    } finally {
      for (ChildJvm child : children) {
        if (child != null) {
          child.close();
        }
      }
    }
    long lastAck = acknowledged.stream().mapToLong(Long::longValue).max().orElseThrow();
    try {
      FileLedgerCrashTest.checkRecovered(base, lastAck, acknowledged, random);
      try (FileLedgerStore store = FileLedgerStore.open(base, AckingCommitter.options())) {
        Ledger<Tick> ledger = store.ledger(FileLedgerCrashTest.ROOT, Tick.class);
        for (long ack : new TreeSet<>(acknowledged)) {
          FileLedgerCrashTest.assertRetryReplays(ledger, ack, "an ACK");
        }
      }
    } catch (Exception | AssertionError e) {
      throw new AssertionError(where + ", " + acknowledged.size() + " ACKs up to revision "
          + lastAck + ": " + e, e);
    }
    System.out.printf("racing crash test: %d SIGKILLs of 2 racing writers, %d acknowledged "
        + "commits verified, 0 lost (%s)%n", kills + 2, acknowledged.size(), where);
  }

  private static ChildJvm start(Path base) {
    return ChildJvm.start(AckingCommitter.class, base.toString(), FileLedgerCrashTest.ROOT);
  }

  /** The revisions a dead child acknowledged: increasing by one, as it saw every revision. */
  private static List<Long> acks(ChildJvm child, String where) {
    List<Long> acks = new ArrayList<>();
    for (String line : child.lines()) {
      String[] parts = line.split(" ");
      assertThat(parts).as("%s: line '%s' of %s", where, line, child.describe()).hasSize(3);
      acks.add(Long.parseLong(parts[1]));
    }
    for (int i = 1; i < acks.size(); i++) {
      assertThat(acks.get(i)).as("%s: ACKs of %s", where, child.describe())
          .isEqualTo(acks.get(i - 1) + 1);
    }
    return acks;
  }
}
