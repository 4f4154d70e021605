package dev.ledger.examples;

import dev.ledger.artifacts.ArtifactRef;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.ArtifactStore;
import dev.ledger.artifacts.SnapshotCursor;
import dev.ledger.artifacts.SnapshotPage;
import dev.ledger.core.Versioned;
import java.util.HashSet;
import java.util.Set;

/**
 * The numbers a run ends with, read back from the ledger and the artifact store.
 *
 * @param tasks tasks in the plan
 * @param succeeded tasks that succeeded
 * @param failed tasks given up after their max attempts
 * @param skipped tasks not run because a dependency failed
 * @param attempts attempts that ran to an outcome (succeeded or failed)
 * @param failedAttempts attempts that failed
 * @param retries attempts after a task's first one
 * @param cancelled attempts stopped before their end
 * @param conflicts revision conflicts the workers reported
 * @param snapshots artifact snapshots frozen
 * @param blobs distinct blobs the snapshots reference
 * @param revision the ledger's revision (one commit each)
 */
public record RunSummary(int tasks, long succeeded, long failed, long skipped, long attempts,
    long failedAttempts, long retries, long cancelled, long conflicts, long snapshots, long blobs,
    long revision) {

  /** Reads the summary of {@code plan} and its snapshots in {@code artifacts}. */
  public static RunSummary of(Versioned<PlanState> plan, ArtifactStore artifacts) {
    PlanState s = plan.state();
    long snapshots = 0;
    Set<String> blobs = new HashSet<>();
    SnapshotPage page;
    SnapshotCursor cursor = SnapshotCursor.START;
    do {
      page = artifacts.list(s.planId(), cursor, 100);
      for (ArtifactSnapshot snapshot : page.snapshots()) {
        snapshots++;
        for (ArtifactRef ref : snapshot.artifactRefs()) {
          if (ref.blob() != null) {
            blobs.add(ref.blob().toString());
          }
        }
      }
      cursor = page.nextCursor();
    } while (page.hasMore());
    return new RunSummary(s.tasks().size(),
        s.countTasks(t -> t.status() == TaskStatus.SUCCEEDED),
        s.countTasks(t -> t.status() == TaskStatus.FAILED),
        s.countTasks(t -> t.status() == TaskStatus.SKIPPED),
        s.countOperations(o -> o.status() == OperationStatus.SUCCEEDED
            || o.status() == OperationStatus.FAILED),
        s.countOperations(o -> o.status() == OperationStatus.FAILED),
        s.countOperations(o -> o.attempt() > 1),
        s.countOperations(o -> o.status() == OperationStatus.CANCELLED),
        s.conflicts(), snapshots, blobs.size(), plan.revision());
  }
}
