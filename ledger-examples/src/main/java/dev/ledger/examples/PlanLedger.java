package dev.ledger.examples;

import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerIOException;
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
 * <p>Every transition carries a command id, so a commit retried after an I/O error is written
 * at most once (see {@link #apply}).
 *
 * <p>Not thread-safe: each worker thread has its own.
 */
public final class PlanLedger {
  private final Ledger<PlanState> ledger;
  private final boolean backoff;
  private static final int IO_ATTEMPTS = 3;
  private long unreported;
  private long ioRetries;
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

  /**
   * Commits, and after an I/O error (the outcome is unknown: the record may or may not have
   * reached the journal) retries the identical commit, same revision, state, events and
   * command id. If the first one landed, the ledger recognises the command id and returns
   * the original result instead of writing it twice; if it did not, the retry commits or
   * meets a conflict as usual. After a failed {@code force} the ledger refuses writes until
   * reopened, so the error then propagates and the worker stops, as if it had crashed.
   */
  private void commitOrRetryIdentical(long revision, PlanState next, Transition t) {
    for (int attempt = 1; ; attempt++) {
      try {
        ledger.commit(revision, next, t.events());
        return;
      } catch (LedgerIOException e) {
        if (attempt == IO_ATTEMPTS) {
          throw e;
        }
        ioRetries++;
      }
    }
  }

  /** Commits retried as identical after an I/O error. */
  public long ioRetries() {
    return ioRetries;
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
   * with the revision read and starts over after a revision conflict. A commit that fails with
   * an I/O error is retried as the identical commit first: the ledger returns the original
   * result if the failed one had landed, so nothing is written twice.
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
        commitOrRetryIdentical(current.revision(), next, t);
        unreported = 0;
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
