package dev.ledger.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.common.base.Preconditions;
import dev.ledger.artifacts.ArtifactRef;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.ArtifactStore;
import dev.ledger.artifacts.BlobVerification;
import dev.ledger.artifacts.SnapshotCursor;
import dev.ledger.artifacts.SnapshotPage;
import dev.ledger.artifacts.fs.FileArtifactStore;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.Ledger;
import dev.ledger.core.Versioned;
import dev.ledger.core.fs.FileLedgerStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The numbers and facts a run of the example ends with, exactly as its summary prints them
 * ({@link #lines}), and two independent ways to get them: {@link #of} from what the
 * orchestrator knows when it stops (its final state, the snapshots its store lists, the
 * processes it killed, the operations it recovered), and {@link #read} from the files alone
 * (the journal replayed from a read-only store, the snapshots listed, every blob re-hashed).
 * The demo prints the first and fails unless it equals the second.
 *
 * <p><b>What counts.</b> An <em>attempt</em> is one operation: one dispatch of a task, numbered
 * from 1 per task. It ends {@code succeeded}, {@code failed} or {@code cancelled}. A task fails
 * for good after {@code maxAttempts} <em>failed</em> attempts; a cancelled attempt (stopped by
 * a drain, or by recovery after its worker died) does not count against the task, so a task
 * given up after 3 failed attempts may show 4 attempts in its timeline. A <em>retry</em> is any
 * attempt after a task's first, whatever ended the one before.
 *
 * @param planId the plan
 * @param tasks tasks in the plan
 * @param maxAttempts failed attempts after which a task fails for good
 * @param succeeded tasks that succeeded
 * @param failed tasks given up after {@code maxAttempts} failed attempts
 * @param skipped tasks never run because a dependency failed
 * @param attempts attempts dispatched (every one has ended)
 * @param succeededAttempts attempts that succeeded
 * @param failedAttempts attempts that failed
 * @param cancelledAttempts attempts cancelled
 * @param retries attempts after a task's first
 * @param conflicts revision conflicts the workers reported
 * @param snapshots artifact snapshots of the plan
 * @param cancelledWithSnapshot cancelled attempts that had frozen their output before the stop
 * @param blobs blobs stored (the summary claims each is referenced by a snapshot)
 * @param kills worker processes killed, in order
 * @param recovered operations that restarted sessions recovered, in order
 * @param events events in the plan's journal
 * @param commits commits of the plan's ledger (its revision)
 */
public record RunSummary(String planId, int tasks, int maxAttempts, long succeeded, long failed,
    long skipped, long attempts, long succeededAttempts, long failedAttempts,
    long cancelledAttempts, long retries, long conflicts, long snapshots,
    long cancelledWithSnapshot, long blobs, List<WorkerKill> kills, List<Recovery> recovered,
    long events, long commits) {
  private static final int PAGE = 100;

  /** Copies the lists. */
  public RunSummary {
    Preconditions.checkNotNull(planId, "planId");
    kills = List.copyOf(kills);
    recovered = List.copyOf(recovered);
  }

  /**
   * One operation a restarted session recovered.
   *
   * @param operation the operation id
   * @param from the status it was found in: pending, running or stop_requested
   * @param end how it ended
   */
  public record Recovery(String operation, OperationStatus from, OperationStatus end) {}

  /**
   * The summary as the orchestrator knows it at the end of its run.
   *
   * @param plan the plan's final state, from the ledger it wrote
   * @param artifacts the artifact store it froze snapshots in (lists the plan's snapshots)
   * @param kills the processes it killed
   * @param recovered the operations its restarted sessions recovered, as found then, in
   *     order
   * @param events the number of events a replay of the journal read
   * @return the summary
   */
  public static RunSummary of(Versioned<PlanState> plan, ArtifactStore artifacts,
      List<WorkerKill> kills, List<Operation> recovered, long events) {
    PlanState s = plan.state();
    Set<String> blobs = new HashSet<>();
    for (ArtifactSnapshot snapshot : snapshots(artifacts, s.planId())) {
      for (ArtifactRef ref : snapshot.artifactRefs()) {
        if (ref.blob() != null) {
          blobs.add(ref.blob().toString());
        }
      }
    }
    List<Recovery> recoveries = new ArrayList<>();
    recovered.forEach(op -> recoveries.add(
        new Recovery(op.id(), op.status(), s.operations().get(op.id()).status())));
    return new RunSummary(s.planId(), s.tasks().size(), s.maxAttempts(),
        s.countTasks(t -> t.status() == TaskStatus.SUCCEEDED),
        s.countTasks(t -> t.status() == TaskStatus.FAILED),
        s.countTasks(t -> t.status() == TaskStatus.SKIPPED),
        s.operations().size(),
        s.countOperations(o -> o.status() == OperationStatus.SUCCEEDED),
        s.countOperations(o -> o.status() == OperationStatus.FAILED),
        s.countOperations(o -> o.status() == OperationStatus.CANCELLED),
        s.countOperations(o -> o.attempt() > 1),
        s.conflicts(),
        s.countOperations(o -> o.snapshotId() != null),
        s.countOperations(o -> o.status() == OperationStatus.CANCELLED && o.snapshotId() != null),
        blobs.size(), kills, recoveries, events, plan.revision());
  }

  /**
   * The summary recomputed from the files of a store directory alone, changing nothing in
   * it: the plan's journal, replayed from a read-only ledger store, gives the tasks, attempts,
   * kills and recoveries (not the state, which {@link #of} uses); the artifact store's listing
   * gives the snapshots; re-hashing the blob directory gives the blobs. Only the conflict
   * count, which no event carries, comes from the ledger's state.
   *
   * @param dir the store directory
   * @param planId the plan
   * @return the summary
   * @throws IllegalStateException if a blob is damaged
   */
  public static RunSummary read(Path dir, String planId) {
    JournalFacts facts = new JournalFacts();
    long conflicts;
    long commits;
    try (FileLedgerStore ledgers = FileLedgerStore.openReadOnly(dir)) {
      Ledger<JsonNode> journal = ledgers.ledger(planId, JsonNode.class);
      try (Stream<Event> all = journal.replay(Cursor.START)) {
        all.forEach(facts::accept);
      }
      Versioned<PlanState> plan = ledgers.ledger(planId, PlanState.class).load();
      conflicts = plan.state().conflicts();
      commits = plan.revision();
    }
    long snapshots = 0;
    long cancelledWithSnapshot = 0;
    long blobs;
    try (FileArtifactStore artifacts = FileArtifactStore.openReadOnly(dir)) {
      for (ArtifactSnapshot snapshot : snapshots(artifacts, planId)) {
        snapshots++;
        if (facts.statusOf(snapshot.attemptId()) == OperationStatus.CANCELLED) {
          cancelledWithSnapshot++;
        }
      }
      BlobVerification verified = artifacts.blobs().verify();
      if (!verified.sound()) {
        throw new IllegalStateException("damaged blobs in " + dir + ": " + verified.damaged());
      }
      blobs = verified.checked();
    }
    return facts.summary(planId, conflicts, snapshots, cancelledWithSnapshot, blobs, commits);
  }

  /**
   * The summary's lines, without a trailing newline, each starting with two spaces.
   *
   * @return the lines, in print order
   */
  public List<String> lines() {
    List<String> lines = new ArrayList<>();
    lines.add(String.format("  tasks      %d: %d succeeded, %d failed (%s, the most allowed), %d"
            + " skipped (a dependency failed)", tasks, succeeded, failed,
        Plural.of(maxAttempts, "failed attempt"), skipped));
    lines.add(String.format("  attempts   %d: %d succeeded, %d failed, %d cancelled (stopped by"
            + " the drain or by recovery; not counted against their task); %s", attempts,
        succeededAttempts, failedAttempts, cancelledAttempts,
        Plural.of(retries, "retry", "retries")));
    lines.add(String.format("  conflicts  %s the race for a revision and %s retried",
        Plural.of(conflicts, "commit lost", "commits lost"), conflicts == 1 ? "was" : "were"));
    lines.add(String.format("  artifacts  %s: one per succeeded or failed attempt, plus %d"
            + " frozen by cancelled attempts before their stop request came; %s",
        Plural.of(snapshots, "snapshot"), cancelledWithSnapshot, Plural.of(blobs, "blob")));
    kills.forEach(kill -> lines.add("  killed     " + kill.describe()));
    for (OperationStatus from : List.of(OperationStatus.RUNNING, OperationStatus.STOP_REQUESTED,
        OperationStatus.PENDING)) {
      lines.add("  recovered  " + recoveredFrom(from));
    }
    lines.add(String.format("  journal    %s in %s", Plural.of(events, "event"),
        Plural.of(commits, "commit")));
    return lines;
  }

  private String recoveredFrom(OperationStatus from) {
    List<String> ids = new ArrayList<>();
    Map<String, Long> ends = new TreeMap<>();
    for (Recovery r : recovered) {
      if (r.from() == from) {
        ids.add(r.operation());
        ends.merge(r.end().wireName(), 1L, Long::sum);
      }
    }
    if (ids.isEmpty()) {
      return "0 " + from.wireName();
    }
    List<String> parts = new ArrayList<>();
    ends.forEach((end, n) -> parts.add(n + " " + end));
    return ids.size() + " " + from.wireName() + " -> " + String.join(", ", parts) + " ("
        + String.join(", ", ids) + ")";
  }

  /** Every snapshot of a root, page by page. */
  private static List<ArtifactSnapshot> snapshots(ArtifactStore artifacts, String rootId) {
    List<ArtifactSnapshot> all = new ArrayList<>();
    SnapshotCursor cursor = SnapshotCursor.START;
    SnapshotPage page;
    do {
      page = artifacts.list(rootId, cursor, PAGE);
      all.addAll(page.snapshots());
      cursor = page.nextCursor();
    } while (page.hasMore());
    return all;
  }

  /** The facts of a plan's journal, folded event by event. */
  private static final class JournalFacts {
    private int tasks;
    private int maxAttempts;
    private final Map<String, OperationStatus> operations = new HashMap<>();
    private final Map<String, Integer> attempts = new HashMap<>();
    private final Map<String, String> taskStatus = new HashMap<>();
    private final List<Map.Entry<String, OperationStatus>> recoveredFrom = new ArrayList<>();
    private final List<WorkerKill> kills = new ArrayList<>();
    private long events;

    void accept(Event event) {
      events++;
      JsonNode p = event.payload();
      String type = event.type();
      if (type.equals("plan.created")) {
        tasks = p.path("tasks").asInt();
        maxAttempts = p.path("maxAttempts").asInt();
      } else if (type.equals("worker.killed")) {
        kills.add(new WorkerKill(p.path("worker").asText(), p.path("pid").asLong(),
            p.path("operation").asText(), p.path("reason").asText()));
      } else if (type.startsWith("operation.")) {
        String op = event.operationId();
        operations.put(op, parse(type.substring("operation.".length())));
        attempts.put(op, p.path("attempt").asInt());
        if (p.has("recoveredFrom")) {
          recoveredFrom.add(Map.entry(op, parse(p.path("recoveredFrom").asText())));
        }
      } else if (type.startsWith("task.")) {
        taskStatus.put(p.path("task").asText(), type.substring("task.".length()));
      }
    }

    OperationStatus statusOf(String operation) {
      return operations.get(operation);
    }

    RunSummary summary(String planId, long conflicts, long snapshots,
        long cancelledWithSnapshot, long blobs, long commits) {
      List<Recovery> recovered = new ArrayList<>();
      recoveredFrom.forEach(r -> recovered.add(new Recovery(r.getKey(), r.getValue(),
          operations.get(r.getKey()))));
      return new RunSummary(planId, tasks, maxAttempts, tasksIn("succeeded"), tasksIn("failed"),
          tasksIn("skipped"), operations.size(), attemptsIn(OperationStatus.SUCCEEDED),
          attemptsIn(OperationStatus.FAILED), attemptsIn(OperationStatus.CANCELLED),
          attempts.values().stream().filter(n -> n > 1).count(), conflicts, snapshots,
          cancelledWithSnapshot, blobs, kills, recovered, events, commits);
    }

    private long tasksIn(String status) {
      return taskStatus.values().stream().filter(status::equals).count();
    }

    private long attemptsIn(OperationStatus status) {
      return operations.values().stream().filter(status::equals).count();
    }

    private static OperationStatus parse(String wireName) {
      return OperationStatus.valueOf(wireName.toUpperCase(Locale.ROOT));
    }
  }
}
