package dev.ledger.registry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.registry.collections.CollectionRunRegistry;
import dev.ledger.testing.base.ChildJvm;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two child JVMs ({@link RacingTransitionChild}) race on the transitions of the runs of one
 * lineage in one file store, each naming the revision it read, and one of them is SIGKILLed
 * after a seeded number of its acknowledgements and replaced, again and again (3 kills times
 * {@code ledger.torture.scale}, then both). Each child forces an {@code ACK} line to its own
 * file for every transition it won before it prints it. Afterwards:
 *
 * <ul>
 *   <li>exactly one child won each revision: no run and revision is acknowledged twice;
 *   <li>no acknowledged transition is lost: the event at that run's sequence = revision is
 *       that transition (from, to, and the child's nonce in its details);
 *   <li>the events replay to the stored run: sequences 1 to the revision without a gap,
 *       {@code run_allocated} into {@code starting} first, then each {@code status_changed}
 *       from the status the previous one entered, allowed by the lifecycle, ending in the
 *       stored status; every attempt but the last is terminal.
 * </ul>
 *
 * <p>Transitions that were in flight at a kill may be in the journal without an
 * acknowledgement (they are counted and printed); none may appear twice.
 */
@ExtendWith(SeedExtension.class)
class RegistryRacingKillTest {
  private static final int KILLS = 3;
  private static final int MAX_ACKS_BEFORE_KILL = 20;
  private static final Duration ACK_DEADLINE = Duration.ofSeconds(90);

  @TempDir Path dir;

  /** The registry the children and the checks use, on {@code store}. */
  static RunRegistry registry(FileLedgerStore store) {
    return CollectionRunRegistry.on(store);
  }

  /** One acknowledged transition, from an ACK file. */
  private record Ack(String run, long revision, String from, String to, String nonce,
      long lostSoFar) {}

  @Test
  void racingTransitionsUnderKillsLoseNoAcknowledgementAndReplayToTheStoredStatus(
      TestSeed seed) throws Exception {
    int kills = KILLS * Integer.getInteger("ledger.torture.scale", 1);
    Random random = seed.random();
    String where = seed.toString();
    Path store = dir.resolve("store");
    Files.createDirectories(dir.resolve("workspace"));
    try (FileLedgerStore ledgers = FileLedgerStore.open(store)) {
      registry(ledgers).registerWorkspace(RacingTransitionChild.WORKSPACE,
          dir.resolve("workspace"));
    }
    List<Path> ackFiles = new ArrayList<>();
    ChildJvm[] children = new ChildJvm[2];
    long started = System.nanoTime();
    try {
      for (int slot = 0; slot < 2; slot++) {
        children[slot] = start(store, slot, ackFiles);
      }
      for (int round = 1; round <= kills + 2; round++) {
        int victim = round > kills ? round - kills - 1 : random.nextInt(2);
        int killAfter = 1 + random.nextInt(MAX_ACKS_BEFORE_KILL);
        ChildJvm child = children[victim];
        assertThat(child.awaitLines(lines -> lines.size() >= killAfter, ACK_DEADLINE))
            .as("kill %s, %s: %s ACKs from %s", round, where, killAfter, child.describe())
            .isTrue();
        LockSupport.parkNanos(random.nextInt((int) TimeUnit.MILLISECONDS.toNanos(3)));
        child.kill();
        if (round <= kills) {
          children[victim] = start(store, victim, ackFiles);
        }
      }
    } finally {
      for (ChildJvm child : children) {
        if (child != null) {
          child.close();
        }
      }
    }
    List<Ack> acks = new ArrayList<>();
    long lostRaces = 0;
    for (Path file : ackFiles) {
      List<Ack> ofChild = read(file);
      acks.addAll(ofChild);
      lostRaces += ofChild.isEmpty() ? 0 : ofChild.get(ofChild.size() - 1).lostSoFar();
    }
    Map<String, Ack> byRevision = new HashMap<>();
    for (Ack ack : acks) {
      Ack other = byRevision.put(ack.run() + "@" + ack.revision(), ack);
      assertThat(other).as("%s: revision %s of %s acknowledged twice: %s and %s", where,
          ack.revision(), ack.run(), other, ack).isNull();
    }
    int runs;
    int transitions = 0;
    int unacknowledged = 0;
    try (FileLedgerStore ledgers = FileLedgerStore.open(store)) {
      RunRegistry registry = registry(ledgers);
      RunRecord latest = registry.latestAttempt(RacingTransitionChild.LINEAGE).orElseThrow();
      runs = latest.attemptNumber();
      for (int attempt = 1; attempt <= runs; attempt++) {
        String name = "race-" + attempt;
        Optional<RunRecord> found = registry.runByExternalId(name);
        assertThat(found).as("%s: attempt %s of %s runs", where, name, runs).isPresent();
        RunRecord run = found.get();
        if (attempt < runs) {
          assertThat(run.status().isTerminal()).as("%s: %s, not the last attempt", where, run)
              .isTrue();
        }
        List<RunEvent> events = registry.runEvents(run.id());
        replay(run, events, where);
        for (RunEvent event : events.subList(1, events.size())) {
          transitions++;
          Ack ack = byRevision.remove(name + "@" + event.sequence());
          String nonce = event.details().path("extra").path("nonce").asText(
              event.details().path("nonce").asText(""));
          if (ack == null) {
            unacknowledged++;
            continue;
          }
          assertThat(List.of(event.from().wireName(), event.to().wireName(), nonce))
              .as("%s: the event at %s@%s against the acknowledgement %s; events %s", where,
                  name, event.sequence(), ack, events)
              .containsExactly(ack.from(), ack.to(), ack.nonce());
        }
      }
    }
    assertThat(byRevision).as("%s: acknowledged transitions missing from the registry", where)
        .isEmpty();
    System.out.printf("registry racing kill test: %d SIGKILLs of 2 racing children, %d runs,"
        + " %d transitions, %d acknowledged (all there, none twice), %d in flight at a kill"
        + " landed unacknowledged, at least %d races lost (stale revision or no longer"
        + " allowed), %.1f s (%s)%n", kills + 2, runs, transitions, acks.size(),
        unacknowledged, lostRaces, (System.nanoTime() - started) / 1e9, where);
  }

  /** The events of {@code run} replay to its stored status and revision. */
  private static void replay(RunRecord run, List<RunEvent> events, String where) {
    String what = where + ": events of " + run + ": " + events;
    assertThat(events).as(what).isNotEmpty();
    assertThat(events.get(0).type()).as(what).isEqualTo(RunEvent.RUN_ALLOCATED);
    assertThat(events.get(0).to()).as(what).isEqualTo(RunStatus.STARTING);
    RunStatus status = RunStatus.STARTING;
    for (int i = 0; i < events.size(); i++) {
      RunEvent event = events.get(i);
      assertThat(event.sequence()).as(what).isEqualTo(i + 1);
      if (i > 0) {
        assertThat(event.from()).as(what).isEqualTo(status);
        assertThat(RunStatus.lifecycle().isAllowed(status, event.to()))
            .as("%s: %s -> %s allowed", what, status, event.to()).isTrue();
        status = event.to();
      }
    }
    assertThat(status).as(what).isEqualTo(run.status());
    assertThat((long) events.size()).as(what).isEqualTo(run.revision());
  }

  private static ChildJvm start(Path store, int slot, List<Path> ackFiles) {
    Path ackFile = store.resolveSibling("acks-" + slot + "-" + ackFiles.size() + ".txt");
    ackFiles.add(ackFile);
    return ChildJvm.start(RacingTransitionChild.class, store.toString(),
        Integer.toString(slot), ackFile.toString());
  }

  /** The complete lines of an ACK file (a kill may leave the last one without its end). */
  private static List<Ack> read(Path file) throws Exception {
    List<Ack> acks = new ArrayList<>();
    if (!Files.exists(file)) {
      return acks;
    }
    String text = Files.readString(file, StandardCharsets.UTF_8);
    int end = text.lastIndexOf('\n');
    if (end < 0) {
      return acks;
    }
    for (String line : text.substring(0, end).split("\n")) {
      String[] p = line.split(" ");
      assertThat(p).as("line '%s' of %s", line, file).hasSize(7);
      acks.add(new Ack(p[1], Long.parseLong(p[2]), p[3], p[4], p[5], Long.parseLong(p[6])));
    }
    return acks;
  }
}
