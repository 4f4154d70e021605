package dev.ledger.examples;

import dev.ledger.core.CommitResult;
import dev.ledger.core.Ledger;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.Versioned;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * One writer's view of a plan's ledger: read-modify-write with the expected revision, retried
 * on conflict, counting the conflicts. The count rides into the ledger with the writer's next
 * commit ({@link PlanState#conflicts()}), so it survives the writer's process.
 *
 * <p>Not thread-safe: each worker thread has its own.
 */
public final class PlanLedger {
  private final Ledger<PlanState> ledger;
  private final boolean backoff;
  private long unreported;
  private long conflicts;

  /**
   * Wraps {@code ledger}.
   *
   * @param backoff whether to pause briefly (randomly, under a millisecond) after a conflict;
   *     off for deterministic single-threaded runs, where no conflict can happen anyway
   */
  public PlanLedger(Ledger<PlanState> ledger, boolean backoff) {
    this.ledger = ledger;
    this.backoff = backoff;
  }

  /** The ledger underneath. */
  public Ledger<PlanState> ledger() {
    return ledger;
  }

  /** The current state. */
  public Versioned<PlanState> load() {
    return ledger.load();
  }

  /** Conflicts this writer met so far. */
  public long conflicts() {
    return conflicts;
  }

  /**
   * Loads the state, asks {@code decide} for a transition (empty: nothing to do), commits it
   * with the revision read and starts over after a revision conflict.
   *
   * @return the committed transition, or empty if {@code decide} found nothing to do
   */
  public Optional<Transition> apply(Function<PlanState, Optional<Transition>> decide) {
    while (true) {
      Versioned<PlanState> current = ledger.load();
      Optional<Transition> change = decide.apply(current.state());
      if (change.isEmpty()) {
        return change;
      }
      Transition t = change.get();
      PlanState next = unreported == 0 ? t.next() : t.next().plusConflicts(unreported);
      try {
        CommitResult result = ledger.commit(current.revision(), next, t.events());
        if (!result.replayed()) {
          unreported = 0;
        }
        return change;
      } catch (RevisionConflictException e) {
        conflicts++;
        unreported++;
        if (backoff) {
          LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(50_000, 500_000));
        }
      }
    }
  }
}
