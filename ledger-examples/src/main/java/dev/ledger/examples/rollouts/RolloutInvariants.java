package dev.ledger.examples.rollouts;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.collections.Query;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.LedgerStore;
import dev.ledger.examples.rollouts.RolloutDocuments.Attempt;
import dev.ledger.examples.rollouts.RolloutDocuments.AttemptStatus;
import dev.ledger.examples.rollouts.RolloutDocuments.Rollout;
import dev.ledger.examples.rollouts.RolloutDocuments.RolloutStatus;
import dev.ledger.examples.rollouts.RolloutDocuments.Span;
import dev.ledger.examples.rollouts.RolloutDocuments.Worker;
import dev.ledger.examples.rollouts.RolloutDocuments.WorkerStatus;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * What must hold when a rollout lifecycle has run to its end, checked from the partition
 * (one consistent read) and from its change feed (the ledger's journal), whoever did the
 * work:
 * <ul>
 *   <li>every rollout ended exactly once: its status is terminal, with an end time, and the
 *       journal holds exactly one write that made it terminal;</li>
 *   <li>its attempts have sequence ids 1 to n; all but the last failed or went unresponsive,
 *       the last one's status is the rollout's (or unresponsive, for a rollout that failed),
 *       and n is what the seeded outcomes and the killed attempt dictate (the first attempt
 *       that neither fails nor was killed, or the last one allowed); failed and succeeded
 *       attempts have an end time;</li>
 *   <li>the one unresponsive attempt is the killed worker's: no live worker was taken for
 *       dead;</li>
 *   <li>its spans' sequence ids are 1 to the rollout's counter, with no gap and no repeat;
 *       each attempt's are consecutive, later attempts' after earlier ones';</li>
 *   <li>the rollout queue is empty, every live worker idle and the killed one unknown.</li>
 * </ul>
 */
public final class RolloutInvariants {
  private RolloutInvariants() {}

  /**
   * One rollout's outcome.
   *
   * @param status its status at the end
   * @param attempts how many attempts it had
   * @param spans how many spans its attempts added
   */
  public record Outcome(RolloutStatus status, int attempts, int spans) {}

  /**
   * What a run left, and what is wrong with it.
   *
   * @param outcomes per rollout id, its outcome
   * @param attemptsByWorker per worker id, the attempts it ran
   * @param violations what does not hold; empty when all does
   */
  public record Findings(Map<String, Outcome> outcomes, Map<String, Integer> attemptsByWorker,
      List<String> violations) {}

  /**
   * Checks a partition after a run.
   *
   * @param ledgers the store that holds the partition
   * @param store the rollout store on it
   * @param partition the partition
   * @param seed the seed the workers' outcomes came from
   * @param maxAttempts the attempts each rollout was allowed
   * @param killedRollout the rollout whose worker was killed mid-attempt
   * @param killedAttempt that attempt
   * @param killedWorker that worker
   * @return the outcomes and the violations
   */
  static Findings check(LedgerStore ledgers, RolloutStore store, String partition, long seed,
      int maxAttempts, String killedRollout, String killedAttempt, String killedWorker) {
    List<String> violations = new ArrayList<>();
    Map<String, Outcome> outcomes = new TreeMap<>();
    Map<String, Integer> byWorker = new TreeMap<>();
    store.read(view -> {
      List<Rollout> rollouts = view.collection("rollouts", Rollout.class).query(Query.all())
          .items();
      Map<String, List<Attempt>> attempts = new HashMap<>();
      for (Attempt a : view.collection("attempts", Attempt.class).query(Query.all()).items()) {
        attempts.computeIfAbsent(a.rolloutId(), k -> new ArrayList<>()).add(a);
        byWorker.merge(a.workerId(), 1, Integer::sum);
      }
      Map<String, List<Span>> spans = new HashMap<>();
      for (Span s : view.collection("spans", Span.class).query(Query.all()).items()) {
        spans.computeIfAbsent(s.rolloutId(), k -> new ArrayList<>()).add(s);
      }
      var counters = view.keyValue("spanSequenceIds", String.class, Long.class);
      for (Rollout r : rollouts) {
        String id = r.rolloutId();
        List<Attempt> mine = attempts.getOrDefault(id, List.of()).stream()
            .sorted(Comparator.comparingInt(Attempt::sequenceId)).toList();
        List<Span> itsSpans = spans.getOrDefault(id, List.of());
        outcomes.put(id, new Outcome(r.status(), mine.size(), itsSpans.size()));
        checkRollout(r, mine, seed, maxAttempts, id.equals(killedRollout) ? killedAttempt : "",
            violations);
        checkSpans(id, mine, itsSpans, counters.get(id).orElse(0L), violations);
      }
      long queued = view.queue("rolloutQueue", String.class).size();
      if (queued != 0) {
        violations.add("the rollout queue still holds " + queued + " ids");
      }
      for (Worker w : view.collection("workers", Worker.class).query(Query.all()).items()) {
        WorkerStatus want = w.workerId().equals(killedWorker) ? WorkerStatus.UNKNOWN
            : WorkerStatus.IDLE;
        if (w.status() != want || w.currentRolloutId() != null) {
          violations.add("worker " + w.workerId() + " is " + w.status() + " on "
              + w.currentRolloutId() + " after the run");
        }
      }
      return null;
    });
    checkEndedOnce(ledgers, partition, outcomes, violations);
    return new Findings(outcomes, byWorker, violations);
  }

  private static void checkRollout(Rollout r, List<Attempt> attempts, long seed,
      int maxAttempts, String killedAttempt, List<String> violations) {
    String id = r.rolloutId();
    if (!r.status().terminal() || r.endTime() == null) {
      violations.add(id + " did not end: " + r.status() + ", end time " + r.endTime());
    }
    // What the seeded outcomes and the kill dictate: attempt k is lost if it was killed, and
    // fails if the seed says so; the rollout stops at the first that does neither.
    int expected = 1;
    while (expected < maxAttempts && lost(seed, id, expected, attempts, killedAttempt)) {
      expected++;
    }
    RolloutStatus outcome = lost(seed, id, expected, attempts, killedAttempt)
        ? RolloutStatus.FAILED : RolloutStatus.SUCCEEDED;
    if (r.status() != outcome || attempts.size() != expected) {
      violations.add(id + " ended " + r.status() + " after " + attempts.size()
          + " attempts; its seeded outcomes say " + outcome + " after " + expected);
    }
    for (int i = 0; i < attempts.size(); i++) {
      Attempt a = attempts.get(i);
      boolean killed = a.attemptId().equals(killedAttempt);
      AttemptStatus want = killed ? AttemptStatus.UNRESPONSIVE
          : RolloutWorker.fails(seed, id, i + 1) ? AttemptStatus.FAILED
          : AttemptStatus.SUCCEEDED;
      boolean ended = a.status() == AttemptStatus.FAILED
          || a.status() == AttemptStatus.SUCCEEDED;
      if (a.sequenceId() != i + 1 || a.status() != want || ended != (a.endTime() != null)) {
        violations.add(id + " attempt " + (i + 1) + " is " + a + ", expected sequence id "
            + (i + 1) + " and status " + want + (killed ? "" : " with an end time"));
      }
    }
  }

  /** Whether attempt {@code k} of a rollout did not succeed: killed, or failing by seed. */
  private static boolean lost(long seed, String rolloutId, int k, List<Attempt> attempts,
      String killedAttempt) {
    boolean killed = attempts.size() >= k && attempts.get(k - 1).attemptId()
        .equals(killedAttempt);
    return killed || RolloutWorker.fails(seed, rolloutId, k);
  }

  private static void checkSpans(String id, List<Attempt> attempts, List<Span> spans,
      long counter, List<String> violations) {
    List<Long> all = spans.stream().map(Span::sequenceId).sorted().toList();
    for (int i = 0; i < all.size(); i++) {
      if (all.get(i) != i + 1) {
        violations.add(id + " span sequence ids are not 1.." + all.size() + ": " + all);
        return;
      }
    }
    if (counter != all.size()) {
      violations.add(id + " span counter is " + counter + " for " + all.size() + " spans");
    }
    long previousEnd = 0;
    for (Attempt a : attempts) {
      List<Long> ids = spans.stream().filter(s -> s.attemptId().equals(a.attemptId()))
          .map(Span::sequenceId).sorted().toList();
      if (ids.isEmpty()) {
        violations.add(id + " attempt " + a.sequenceId() + " has no span");
        continue;
      }
      if (ids.get(0) != previousEnd + 1 || ids.get(ids.size() - 1) - ids.get(0)
          != ids.size() - 1) {
        violations.add(id + " attempt " + a.sequenceId() + " has span sequence ids " + ids
            + " after " + previousEnd + ": not consecutive");
      }
      previousEnd = ids.get(ids.size() - 1);
    }
  }

  /** Counts, in the change feed, the writes that made each rollout terminal. */
  private static void checkEndedOnce(LedgerStore ledgers, String partition,
      Map<String, Outcome> outcomes, List<String> violations) {
    Map<String, Integer> ended = new HashMap<>();
    try (Stream<Event> events = ledgers.ledger(partition, JsonNode.class)
        .replay(Cursor.START)) {
      events.forEach(e -> {
        JsonNode p = e.payload();
        if (e.type().equals("collection.update")
            && p.path("collection").asText().equals("rollouts")
            && p.path("patch").has("status")
            && RolloutStatus.valueOf(p.path("patch").path("status").asText()).terminal()) {
          ended.merge(p.path("key").path(0).asText(), 1, Integer::sum);
        }
      });
    }
    for (String id : outcomes.keySet()) {
      int times = ended.getOrDefault(id, 0);
      if (times != 1) {
        violations.add(id + " was made terminal " + times + " times in the journal");
      }
    }
  }
}
