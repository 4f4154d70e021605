package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.Ledger;
import dev.ledger.core.VerifyReport;
import dev.ledger.core.Versioned;
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
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retention against real SIGKILLs: a child JVM ({@link RetainingCommitter}) commits and
 * applies {@code keepRevisions(20)} after every third commit, and is killed at a random
 * moment (inside a commit, a checkpoint, a segment roll, or a retention: before its marker,
 * between the marker and the deletes, between two deletes). After every kill the store opens,
 * {@code verify()} finds no damage, the state is the last acknowledged one or the next, the
 * journal from the first retained event on is gapless and whole, nothing the policy keeps is
 * missing, and acknowledged commands replay (with their events if kept, without if removed).
 *
 * <p>Kills per run: 8 times {@code ledger.torture.scale} (default 1); the seed is in every
 * failure message and {@code -Dledger.seed} replays its choices (the timing stays the OS's).
 */
@ExtendWith(SeedExtension.class)
class FileLedgerRetentionCrashTest {
  private static final String ROOT = "retained";
  private static final int KILLS = 8;
  private static final int MAX_ACKS_BEFORE_KILL = 150;
  private static final Duration ACK_DEADLINE = Duration.ofSeconds(60);

  @TempDir
  Path dir;

  @Test
  void killedRetentionLosesNothingThePolicyKeepsAndLeavesAVerifiableLedger(TestSeed seed)
      throws Exception {
    int kills = KILLS * Integer.getInteger("ledger.torture.scale", 1);
    Random random = seed.random();
    Path base = dir.resolve("store");
    List<Long> acknowledged = new ArrayList<>();
    long revision = Ledger.NO_REVISION;
    int retentions = 0;
    int leftovers = 0;
    for (int round = 1; round <= kills; round++) {
      String context = "kill " + round + " of " + kills + ", " + seed;
      try {
        int killAfter = 1 + random.nextInt(MAX_ACKS_BEFORE_KILL);
        long delayNanos = random.nextInt((int) TimeUnit.MILLISECONDS.toNanos(3));
        List<Long> acks = new ArrayList<>();
        try (ChildJvm child = ChildJvm.start(RetainingCommitter.class, base.toString(),
            ROOT)) {
          boolean acked = child.awaitLines(lines -> lines.stream()
              .filter(l -> l.startsWith("ACK ")).count() >= killAfter, ACK_DEADLINE);
          assertThat(acked).as("%s ACKs from %s", killAfter, child.describe()).isTrue();
          LockSupport.parkNanos(delayNanos);
          child.kill();
          for (String line : child.lines()) {
            String[] parts = line.split(" ");
            if (parts[0].equals("RETAINED")) {
              retentions++;
              continue;
            }
            assertThat(parts).as("line '%s' of %s", line, child.describe()).hasSize(3);
            assertThat(parts[0]).isEqualTo("ACK");
            acks.add(Long.parseLong(parts[1]));
          }
        }
        assertThat(acks).startsWith(revision + 1).isSorted()
            .hasSize((int) (acks.get(acks.size() - 1) - revision));
        acknowledged.addAll(acks);
        long lastAck = acks.get(acks.size() - 1);
        context += ", " + acks.size() + " ACKs up to revision " + lastAck;
        Check check = checkRecovered(base, lastAck, acknowledged, random);
        revision = check.revision;
        leftovers += check.leftovers;
      } catch (Exception | AssertionError e) {
        throw new AssertionError(context + ": " + e, e);
      }
    }
    System.out.printf("retention crash test: %d SIGKILLs survived, %d acknowledged commits, "
        + "%d retentions, %d segments left by interrupted retentions, 0 lost (%s)%n", kills,
        acknowledged.size(), retentions, leftovers, seed);
  }

  private record Check(long revision, int leftovers) {}

  private static Check checkRecovered(Path base, long lastAck, List<Long> acknowledged,
      Random random) {
    try (FileLedgerStore store = FileLedgerStore.open(base, AckingCommitter.options())) {
      VerifyReport report = store.verify();
      assertThat(report.clean()).as("verify after the kill: %s", report).isTrue();
      int leftovers = (int) report.findings().stream()
          .filter(f -> f.kind() == VerifyReport.Kind.RETAINED_LEFTOVER).count();

      Ledger<Tick> ledger = store.ledger(ROOT, Tick.class);
      Versioned<Tick> current = ledger.load();
      long revision = current.revision();
      assertThat(revision).as("recovered revision vs last ACK").isBetween(lastAck, lastAck + 1);
      assertThat(current.state()).isEqualTo(AckingCommitter.state(revision));

      long first = ledger.firstRetainedSequence();
      // One event per commit: sequence = revision. The policy kept the last KEEP revisions
      // of a head no later than the last ACK.
      assertThat(first).as("first retained sequence")
          .isLessThanOrEqualTo(Math.max(1, lastAck - RetainingCommitter.KEEP + 1));
      try (Stream<Event> events = ledger.replay(Cursor.START)) {
        List<Event> all = events.toList();
        assertThat(all).hasSize((int) (revision - first + 1));
        for (int i = 0; i < all.size(); i++) {
          Event e = all.get(i);
          assertThat(e.sequence()).isEqualTo(first + i);
          assertThat(e.revision()).isEqualTo(first + i);
          assertThat(e.payload().get("revision").asLong()).isEqualTo(first + i);
        }
      }
      for (long ack : List.of(lastAck, acknowledged.get(random.nextInt(acknowledged.size())))) {
        CommitResult retry = ledger.commit(ack - 1, AckingCommitter.state(ack),
            AckingCommitter.events(ack));
        assertThat(retry.replayed()).as("retry of revision %s", ack).isTrue();
        assertThat(retry.revision()).isEqualTo(ack);
        if (ack >= first) {
          assertThat(retry.events()).extracting(Event::sequence).containsExactly(ack);
        } else {
          assertThat(retry.events()).isEmpty();
        }
      }
      CommitResult next = ledger.commit(revision, AckingCommitter.state(revision + 1),
          AckingCommitter.events(revision + 1));
      assertThat(next.replayed()).isFalse();
      return new Check(next.revision(), leftovers);
    }
  }
}
