package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.core.CommitResult;
import dev.ledger.core.Event;
import dev.ledger.core.Ledger;
import dev.ledger.core.Versioned;
import dev.ledger.core.fs.AckingCommitter.Tick;
import dev.ledger.core.spi.CommitRequest;
import dev.ledger.testing.base.ChildJvm;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.io.IOException;
import java.nio.file.Files;
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
 * Promises 1, 2 (for process crashes), 4, 5 and 9 against real SIGKILLs: a child JVM commits
 * in a loop, printing each acknowledged revision; this test kills it at a random moment
 * (often inside a commit, a checkpoint or a segment roll), reopens the store, checks that
 * nothing acknowledged was lost and the ledger is whole, commits once itself, and lets the
 * next child continue.
 *
 * <p>Kills per run: 5 times the system property {@code ledger.torture.scale} (default 1).
 * The kill moments come from a seeded {@link Random}; the seed is in every failure message
 * and {@code -Dledger.seed=<root seed>} replays its choices (the timing stays the OS's).
 */
@ExtendWith(SeedExtension.class)
class FileLedgerCrashTest {
  static final String ROOT = "crash";
  private static final int KILLS = 5;
  private static final int MAX_ACKS_BEFORE_KILL = 200;
  private static final Duration ACK_DEADLINE = Duration.ofSeconds(60);

  @TempDir
  Path dir;

  @Test
  void killedWriterLosesNoAcknowledgedCommitAndLeavesAWholeLedger(TestSeed seed) throws Exception {
    int kills = KILLS * Integer.getInteger("ledger.torture.scale", 1);
    Random random = seed.random();
    Path base = dir.resolve("store");
    List<Long> acknowledged = new ArrayList<>();
    long revision = Ledger.NO_REVISION;
    for (int round = 1; round <= kills; round++) {
      String context = "kill " + round + " of " + kills + ", " + seed;
      try {
        List<Long> acks = runAndKill(base, revision, random);
        acknowledged.addAll(acks);
        context += ", " + acks.size() + " ACKs up to revision " + acks.get(acks.size() - 1)
            + ", left " + aftermath(base);
        revision = checkRecovered(base, acks.get(acks.size() - 1), acknowledged, random);
      } catch (Exception | AssertionError e) {
        throw new AssertionError(context + ": " + e, e);
      }
    }
    try (FileLedgerStore store = FileLedgerStore.open(base, AckingCommitter.options())) {
      Ledger<Tick> ledger = store.ledger(ROOT, Tick.class);
      for (long ack : acknowledged) {
        assertRetryReplays(ledger, ack, seed.toString());
      }
    }
    System.out.printf("crash test: %d SIGKILLs survived, %d acknowledged commits verified, "
        + "0 lost (%s)%n", kills, acknowledged.size(), seed);
  }

  /**
   * Starts a committer on a ledger at {@code revision}, kills it after a random number of
   * acknowledgements plus a random delay, and returns the revisions it acknowledged.
   */
  private static List<Long> runAndKill(Path base, long revision, Random random)
      throws InterruptedException {
    int killAfter = 1 + random.nextInt(MAX_ACKS_BEFORE_KILL);
    long delayNanos = random.nextInt((int) TimeUnit.MILLISECONDS.toNanos(3));
    try (ChildJvm child = ChildJvm.start(AckingCommitter.class, base.toString(), ROOT)) {
      boolean acked = child.awaitLines(lines -> lines.size() >= killAfter, ACK_DEADLINE);
      assertThat(acked).as("%s ACKs within %s from %s", killAfter, ACK_DEADLINE,
          child.describe()).isTrue();
      // Moves the kill off the ACK line to a random point of a later commit.
      LockSupport.parkNanos(delayNanos);
      child.kill();
      List<Long> acks = new ArrayList<>();
      for (String line : child.lines()) {
        String[] parts = line.split(" ");
        assertThat(parts).as("line '%s' of %s", line, child.describe()).hasSize(3);
        assertThat(parts[0]).isEqualTo("ACK");
        long ack = Long.parseLong(parts[1]);
        assertThat(parts[2]).isEqualTo(AckingCommitter.commandId(ack));
        acks.add(ack);
      }
      // The child continued from the revision the ledger was at, one revision per commit.
      assertThat(acks).as("revisions acknowledged by %s", child.describe())
          .startsWith(revision + 1)
          .isSorted()
          .doesNotHaveDuplicates()
          .hasSize((int) (acks.get(acks.size() - 1) - revision));
      return acks;
    }
  }

  /**
   * Reopens the store after a kill and checks the recovered ledger; commits the next revision
   * as a restarted writer would. Returns the revision the ledger is at afterwards.
   */
  static long checkRecovered(Path base, long lastAck, List<Long> acknowledged,
      Random random) throws IOException {
    long revision;
    try (FileLedgerStore store = FileLedgerStore.open(base, AckingCommitter.options())) {
      Ledger<Tick> ledger = store.ledger(ROOT, Tick.class);
      Versioned<Tick> current = ledger.load();
      revision = current.revision();
      assertThat(revision).as("recovered revision vs last ACK").isGreaterThanOrEqualTo(lastAck);
      // Commits are whole: the recovered state is the one committed with that revision.
      assertThat(current.state()).isEqualTo(AckingCommitter.state(revision));
      assertJournalWhole(ledger, revision);

      assertRetryReplays(ledger, lastAck, "last ACK");
      assertRetryReplays(ledger, acknowledged.get(random.nextInt(acknowledged.size())),
          "an earlier ACK");

      CommitResult next = ledger.commit(revision, AckingCommitter.state(revision + 1),
          AckingCommitter.events(revision + 1));
      assertThat(next.replayed()).isFalse();
      assertThat(next.revision()).isEqualTo(revision + 1);
      revision = next.revision();
    }
    assertNoDebrisLeft(base);
    return revision;
  }

  /** What the kill left on disk, before any recovery: for failure messages. */
  private static String aftermath(Path base) throws IOException {
    Path ledgerDir = base.resolve("ledgers").resolve(ROOT);
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(ledgerDir)) {
      files.filter(p -> p.getFileName().toString().endsWith(".tmp"))
          .forEach(p -> found.add("temp file " + ledgerDir.relativize(p)));
    }
    try (Stream<Path> segments = Files.list(ledgerDir.resolve("journal"))) {
      Path last = segments.max(Path::compareTo).orElseThrow();
      byte[] bytes = Files.readAllBytes(last);
      if (bytes.length == 0) {
        found.add("empty segment " + last.getFileName());
      } else if (bytes[bytes.length - 1] != '\n') {
        found.add("torn tail in " + last.getFileName());
      }
    }
    return found.isEmpty() ? "a clean journal end" : String.join(", ", found);
  }

  /** Events 1..revision, one per commit, each carrying its commit's revision and command. */
  private static void assertJournalWhole(Ledger<Tick> ledger, long revision) {
    List<Event> events = Counter.journal(ledger);
    assertThat(events).as("events in the journal").hasSize((int) revision);
    for (int i = 0; i < events.size(); i++) {
      Event event = events.get(i);
      long expected = i + 1;
      assertThat(event.sequence()).as("sequence of event %s", i).isEqualTo(expected);
      assertThat(event.revision()).as("revision of event %s", expected).isEqualTo(expected);
      assertThat(event.payload().get("revision").asLong()).as("payload of event %s", expected)
          .isEqualTo(expected);
      assertThat(event.commandId()).as("command of event %s", expected)
          .isEqualTo(CommitRequest.publicCommandId(AckingCommitter.commandId(expected)));
    }
  }

  /** Retrying the command of an acknowledged revision returns that commit, writing nothing. */
  static void assertRetryReplays(Ledger<Tick> ledger, long ack, String which) {
    CommitResult retry = ledger.commit(ack - 1, AckingCommitter.state(ack),
        AckingCommitter.events(ack));
    assertThat(retry.replayed()).as("retry of %s (revision %s) replayed", which, ack).isTrue();
    assertThat(retry.revision()).as("retry of %s", which).isEqualTo(ack);
    assertThat(retry.events()).extracting(Event::sequence).containsExactly(ack);
  }

  /**
   * After a restarted writer committed and closed: no temp file anywhere in the ledger, every
   * journal segment ends with a complete record (the torn tail was cut), and the lock file
   * names no holder.
   */
  private static void assertNoDebrisLeft(Path base) throws IOException {
    Path ledgerDir = base.resolve("ledgers").resolve(ROOT);
    try (Stream<Path> files = Files.walk(ledgerDir)) {
      assertThat(files.filter(Files::isRegularFile)
          .map(p -> ledgerDir.relativize(p).toString())
          .filter(name -> name.endsWith(".tmp") || name.contains("/.")
              || name.startsWith(".") && !name.equals(".lock")))
          .as("temp files left in the ledger directory").isEmpty();
    }
    try (Stream<Path> segments = Files.list(ledgerDir.resolve("journal"))) {
      for (Path segment : segments.toList()) {
        byte[] bytes = Files.readAllBytes(segment);
        assertThat(bytes.length).as("size of %s", segment.getFileName()).isPositive();
        assertThat(bytes[bytes.length - 1]).as("last byte of %s", segment.getFileName())
            .isEqualTo((byte) '\n');
      }
    }
    assertThat(Files.size(ledgerDir.resolve(".lock"))).as("lock file size").isZero();
  }
}
