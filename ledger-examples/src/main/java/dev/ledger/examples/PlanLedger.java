package dev.ledger.examples;

import dev.ledger.core.Change;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.Versioned;
import java.util.Optional;
import java.util.function.Function;

/**
 * One writer's view of a plan's ledger: each transition is one {@link Ledger#update}, which
 * loads the state, lets the caller decide, commits with the revision it read and, after a lost
 * race, decides again on the new state. The races lost are counted, and the count rides into
 * the ledger with the writer's next commit ({@link PlanState#conflicts()}), so it survives the
 * writer's process.
 *
 * <p>Every transition carries a command id, so an I/O error, which leaves a commit's outcome
 * unknown, is settled by asking the ledger whether the command was recorded (see
 * {@link #apply}); nothing is ever written twice.
 *
 * <p>Not thread-safe: each worker thread has its own.
 */
public final class PlanLedger {
  private static final int IO_ATTEMPTS = 3;

  private final Ledger<PlanState> ledger;
  private long unreported;
  private long ioErrors;
  private long conflicts;

  /**
   * Wraps {@code ledger}; conflicts are retried with the ledger's backoff
   * ({@code LedgerOptions.updateAttempts} and {@code updateBackoff}).
   *
   * @param ledger the plan's ledger
   */
  public PlanLedger(Ledger<PlanState> ledger) {
    this.ledger = ledger;
  }

  /** I/O errors met while committing, each settled by asking the ledger. */
  public long ioErrors() {
    return ioErrors;
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
   * Applies the transition {@code decide} chooses for the current state (empty: nothing to do)
   * as one {@link Ledger#update}. After an I/O error the commit may or may not have reached the
   * journal: if the ledger recorded the transition's command, it did and is done; if not, the
   * update runs again, deciding afresh. After a failed {@code force} the file store refuses
   * writes until reopened, so the error then propagates and the worker stops, as if it had
   * crashed.
   *
   * @return the committed transition, or empty if {@code decide} found nothing to do
   */
  public Optional<Transition> apply(Function<PlanState, Optional<Transition>> decide) {
    for (int attempt = 1; ; attempt++) {
      Decision decision = new Decision(decide);
      try {
        ledger.update(decision);
      } catch (LedgerIOException e) {
        ioErrors++;
        Optional<Transition> tried = decision.last;
        if (tried.isPresent() && ledger.command(tried.get().commandId()).isPresent()) {
          unreported = 0;
          return tried;
        }
        if (attempt == IO_ATTEMPTS) {
          throw e;
        }
        continue;
      }
      if (decision.last.isPresent()) {
        unreported = 0;
      }
      return decision.last;
    }
  }

  /** The change function of one update; remembers what it decided last. */
  private final class Decision implements Function<PlanState, Change<PlanState>> {
    private final Function<PlanState, Optional<Transition>> decide;
    private Optional<Transition> last = Optional.empty();
    private int runs;

    Decision(Function<PlanState, Optional<Transition>> decide) {
      this.decide = decide;
    }

    @Override
    public Change<PlanState> apply(PlanState state) {
      if (runs++ > 0) { // update decides again only after its commit lost a race
        conflicts++;
        unreported++;
      }
      last = decide.apply(state);
      if (last.isEmpty()) {
        return Change.none();
      }
      Transition t = last.get();
      PlanState next = unreported == 0 ? t.next() : t.next().plusConflicts(unreported);
      return Change.to(next, t.events());
    }
  }
}
