package dev.ledger.registry;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.core.lifecycle.InvalidTransitionException;
import dev.ledger.testing.base.ChildJvm;
import dev.ledger.testing.base.TestSeed;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;

/**
 * A child JVM of {@link RegistryRacingKillTest}: {@code RacingTransitionChild STORE SLOT
 * ACK_FILE}. It races the other slot's child on the runs of one lineage, {@code race-1},
 * {@code race-2}, ...: it reads the latest attempt; if that run is terminal (or there is none)
 * it allocates the next attempt (a duplicate, because the other child was first, is a lost
 * race); otherwise it asks for a transition from the run's status to a target of its own
 * ({@link #targets}: the allowed targets at even positions for slot 0, odd for slot 1, so the
 * two children never ask for the same transition of the same revision), naming the revision
 * it read and a nonce {@code SLOT-PID-K} in the details.
 *
 * <p>A transition it won (the returned run is at the revision it read plus one, in the status
 * it asked for) is acknowledged: the line
 * {@code ACK <run> <revision> <from> <to> <nonce> <transitions lost so far>} is appended to
 * {@code ACK_FILE} and forced, then printed on standard output. Lost races
 * ({@link StaleRunRevisionException}, {@link InvalidTransitionException},
 * {@link DuplicateRunException}) are retried with a fresh read. It runs until it is killed
 * or its standard input ends.
 */
public final class RacingTransitionChild {
  static final String LINEAGE = "race-1";
  static final String WORKSPACE = "race";

  private RacingTransitionChild() {}

  /**
   * Entry point; see the class comment.
   *
   * @param args {@code STORE SLOT ACK_FILE}
   * @throws Exception if the store fails
   */
  public static void main(String[] args) throws Exception {
    ChildJvm.exitWhenParentGoes();
    Path store = Path.of(args[0]);
    int slot = Integer.parseInt(args[1]);
    Path ackFile = Path.of(args[2]);
    long pid = ProcessHandle.current().pid();
    Random random = TestSeed.of(RacingTransitionChild.class.getSimpleName() + "-" + slot + "-"
        + pid).random();
    try (FileLedgerStore ledgers = FileLedgerStore.open(store);
        FileChannel acks = FileChannel.open(ackFile, StandardOpenOption.CREATE,
            StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      RunRegistry registry = RegistryRacingKillTest.registry(ledgers);
      long lost = 0;
      for (long k = 0; ; k++) {
        Optional<RunRecord> latest = registry.latestAttempt(LINEAGE);
        if (latest.isEmpty() || latest.get().status().isTerminal()) {
          int attempt = latest.map(r -> r.attemptNumber() + 1).orElse(1);
          NewRun.Builder next = NewRun.builder(WORKSPACE, "race-" + attempt);
          if (attempt > 1) {
            next.attemptOf(LINEAGE, attempt);
          }
          try {
            registry.allocateRun(next.build());
          } catch (DuplicateRunException e) {
            // The other child allocated it first.
          }
          continue;
        }
        RunRecord run = latest.get();
        List<RunStatus> mine = targets(run.status(), slot);
        if (mine.isEmpty()) {
          continue;
        }
        RunStatus to = pick(mine, random);
        String nonce = slot + "-" + pid + "-" + k;
        TransitionDetails details = TransitionDetails.none()
            .withExtra(JsonNodeFactory.instance.objectNode().put("nonce", nonce));
        RunRecord after;
        try {
          after = registry.transitionRun(run.id(), to, run.revision(), details);
        } catch (StaleRunRevisionException | InvalidTransitionException e) {
          lost++;
          continue;
        }
        if (after.revision() == run.revision() + 1 && after.status() == to) {
          String line = "ACK " + run.externalRunId() + " " + after.revision() + " "
              + run.status().wireName() + " " + to.wireName() + " " + nonce + " " + lost;
          ByteBuffer bytes = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
          while (bytes.hasRemaining()) {
            acks.write(bytes);
          }
          acks.force(false);
          System.out.println(line);
          System.out.flush();
        }
      }
    }
  }

  /**
   * The targets slot {@code slot} may ask for from {@code from}: the allowed ones, in the
   * lifecycle's order, at even positions for slot 0 and odd ones for slot 1.
   */
  static List<RunStatus> targets(RunStatus from, int slot) {
    List<RunStatus> allowed = new ArrayList<>();
    for (RunStatus to : RunStatus.values()) {
      if (to != from && RunStatus.lifecycle().isAllowed(from, to)) {
        allowed.add(to);
      }
    }
    List<RunStatus> mine = new ArrayList<>();
    for (int i = slot; i < allowed.size(); i += 2) {
      mine.add(allowed.get(i));
    }
    return mine;
  }

  /** Three times in four a status with a way out, so runs live several revisions. */
  private static RunStatus pick(List<RunStatus> targets, Random random) {
    List<RunStatus> open = targets.stream().filter(s -> !s.isTerminal()).toList();
    if (!open.isEmpty() && random.nextInt(4) != 0) {
      return open.get(random.nextInt(open.size()));
    }
    return targets.get(random.nextInt(targets.size()));
  }
}
