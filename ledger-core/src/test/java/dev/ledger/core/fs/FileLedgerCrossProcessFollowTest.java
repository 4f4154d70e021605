package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.core.Event;
import dev.ledger.core.Ledger;
import dev.ledger.testing.base.ChildJvm;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13, reliability: a follower in another process ({@link FollowRecorder}, a child JVM
 * with a read-only store) sees every acknowledged commit exactly once, in order, while writer
 * processes ({@link FollowWriter}, each printing an acknowledgement after every commit
 * returns) are SIGKILLed one after another, often mid-commit, mid-checkpoint or mid-roll (4
 * KiB segments, a checkpoint every 7 commits). A commit that was in flight at a kill may
 * appear, once, or not at all.
 *
 * <p>Kills per run: 10 times {@code ledger.torture.scale} (default 1; 5 gives the 50).
 * The acknowledgements before each kill and the delay after them come from the printed seed.
 */
@ExtendWith(SeedExtension.class)
class FileLedgerCrossProcessFollowTest {
  private static final String ROOT = "followed";
  private static final Duration DEADLINE = Duration.ofSeconds(120);

  @TempDir
  Path dir;

  @Test
  void aFollowerInAnotherProcessSeesEveryAcknowledgedCommitOnceInOrderAcrossWriterKills(
      TestSeed seed) throws Exception {
    int kills = 10 * Integer.getInteger("ledger.torture.scale", 1);
    Random random = seed.random();
    Path base = dir.resolve("store");
    try (FileLedgerStore store = FileLedgerStore.open(base, FileLedgerMultiProcessTest.options())) {
      store.ledger(ROOT, Counter.class).commit(Ledger.NO_REVISION, new Counter(0));
    }
    TreeMap<Long, String> acknowledged = new TreeMap<>();
    try (ChildJvm follower = ChildJvm.start(FollowRecorder.class, base.toString(), ROOT)) {
      follower.awaitLine("READY", DEADLINE);
      for (int kill = 0; kill <= kills; kill++) {
        String writer = "g" + kill;
        boolean last = kill == kills;
        try (ChildJvm child = ChildJvm.start(FollowWriter.class, base.toString(), ROOT, writer,
            last ? "20" : "1000000", "0")) {
          child.awaitLine("READY", DEADLINE);
          child.send("GO");
          if (last) {
            // The last writer finishes, so the journal ends with a clean commit.
            assertThat(child.awaitExit(DEADLINE)).as(child.describe()).isZero();
          } else {
            int acks = 1 + random.nextInt(40);
            assertThat(child.awaitLines(lines -> acks(lines) >= acks, DEADLINE))
                .as("%d acknowledgements from %s (%s)", acks, child.describe(), seed).isTrue();
            LockSupport.parkNanos(random.nextInt(2_000_000));
            child.kill();
          }
          for (String line : child.lines()) {
            if (line.startsWith("COMMITTED ")) {
              long sequence = Long.parseLong(line.split(" ")[1]);
              String before = acknowledged.put(sequence, writer);
              assertThat(before).as("sequence %d acknowledged twice (%s)", sequence, seed)
                  .isNull();
            }
          }
        }
      }
      long total;
      List<Event> journal;
      try (FileLedgerStore store = FileLedgerStore.openReadOnly(base)) {
        Ledger<Counter> ledger = store.ledger(ROOT, Counter.class);
        total = ledger.load().state().count();
        journal = Counter.journal(ledger);
      }
      assertThat(follower.awaitLines(lines -> events(lines).size() >= total, DEADLINE))
          .as("the follower received all %d events: %s (%s)", total, follower.describe(), seed)
          .isTrue();
      follower.send("STOP");
      follower.awaitLine("DONE", DEADLINE);
      assertThat(follower.awaitExit(DEADLINE)).as(follower.describe()).isZero();
      List<String[]> received = events(follower.lines());
      assertThat(received).extracting(e -> Long.parseLong(e[0])).as("sequences received (%s)",
          seed).containsExactlyElementsOf(LongStream.rangeClosed(1, total).boxed().toList());
      assertThat(received).extracting(e -> e[1]).as("events received against the journal")
          .containsExactlyElementsOf(journal.stream().map(Counter::step).toList());
      acknowledged.forEach((sequence, writer) -> assertThat(
          received.get((int) (sequence - 1))[1]).as("acknowledged commit %d of %s (%s)",
              sequence, writer, seed).startsWith(writer + "/"));
      System.out.printf("cross-process follow: %d writer kills, %d events followed, %d "
          + "acknowledged, 0 lost, 0 repeated (%s)%n", kills, total, acknowledged.size(), seed);
    }
  }

  private static long acks(List<String> lines) {
    return lines.stream().filter(l -> l.startsWith("COMMITTED ")).count();
  }

  private static List<String[]> events(List<String> lines) {
    List<String[]> events = new ArrayList<>();
    for (String line : lines) {
      if (line.startsWith("EVENT ")) {
        String[] parts = line.split(" ");
        events.add(new String[] {parts[1], parts[2]});
      }
    }
    return events;
  }
}
