package dev.ledger.examples;

import dev.ledger.artifacts.ArtifactStore;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.Versioned;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The orchestrator's story on one thread, in a fixed order, so that it is the same every
 * time: three sessions over the same stores.
 *
 * <ol>
 *   <li>Session 1: the plan is created; worker w1 crashes in its third attempt (its operation
 *       stays running); w2 takes six steps and dispatches what is ready; w3 claims an
 *       operation; the orchestrator, not knowing w1 is dead, drains (both running operations
 *       become stop-requested); w3 acknowledges by cancelling; w1 never does.
 *   <li>Session 2 (fresh store instances where the stores allow it): recovery cancels w1's
 *       stop-requested operation and keeps the pending ones; worker w4 crashes in its fifth
 *       attempt and the orchestrator stops without draining (its operation stays running).
 *   <li>Session 3: recovery puts w4's running operation back to pending as the same attempt;
 *       w5 runs the plan to its end.
 * </ol>
 */
final class DeterministicScenario {
  static final Clock CLOCK = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
  static final String PLAN = "test-plan";
  static final long SEED = 7;
  static final int TASKS = 12;
  static final int MAX_ATTEMPTS = 3;

  /** Stores for one session; closing them ends the session. */
  record Stores(LedgerStore ledgers, ArtifactStore artifacts, boolean closeOnEnd)
      implements AutoCloseable {
    @Override
    public void close() {
      if (closeOnEnd) {
        try (artifacts) {
          ledgers.close();
        }
      }
    }
  }

  /** Opens the stores of a session. */
  @FunctionalInterface
  interface StoreFactory {
    Stores open();
  }

  /**
   * What the scenario saw.
   *
   * @param finalState the plan at the end
   * @param recoveredInSession2 what session 2 recovered, as found
   * @param recoveredInSession3 what session 3 recovered, as found
   * @param stopRequested what the drain asked to stop
   */
  record Result(Versioned<PlanState> finalState, List<Operation> recoveredInSession2,
      List<Operation> recoveredInSession3, List<String> stopRequested) {}

  /** Thrown by the work to stand for a worker dying mid-attempt. */
  static final class SimulatedCrash extends RuntimeException {
    private static final long serialVersionUID = 1L;

    SimulatedCrash(String opId) {
      super("simulated crash while running " + opId);
    }
  }

  private DeterministicScenario() {}

  static Result run(StoreFactory factory) {
    List<String> stopped;
    try (Stores s = factory.open()) {
      Orchestration.create(ledger(s), Plans.generate(PLAN, SEED, TASKS, MAX_ATTEMPTS));
      runUntilCrash(worker("w1", s, crashingOn(3)));
      Worker w2 = worker("w2", s, work());
      for (int i = 0; i < 6; i++) {
        w2.step();
      }
      w2.dispatch();
      Worker w3 = worker("w3", s, work());
      Operation claimed = w3.claim().orElseThrow();
      stopped = Orchestration.requestDrain(new PlanLedger(ledger(s)), Set.of());
      w3.run(claimed);
    }
    List<Operation> second;
    try (Stores s = factory.open()) {
      second = Orchestration.recover(new PlanLedger(ledger(s)));
      runUntilCrash(worker("w4", s, crashingOn(5)));
    }
    try (Stores s = factory.open()) {
      List<Operation> third = Orchestration.recover(new PlanLedger(ledger(s)));
      Worker w5 = worker("w5", s, work());
      for (int i = 0; w5.step() != Worker.Step.DONE; i++) {
        if (i > 1000) {
          throw new AssertionError("plan did not finish");
        }
      }
      return new Result(ledger(s).load(), second, third, stopped);
    }
  }

  static TaskWork work() {
    return new SimulatedWork(false);
  }

  private static TaskWork crashingOn(int nth) {
    AtomicInteger performed = new AtomicInteger();
    TaskWork work = work();
    return (plan, op) -> {
      if (performed.incrementAndGet() == nth) {
        throw new SimulatedCrash(op.id());
      }
      return work.perform(plan, op);
    };
  }

  private static void runUntilCrash(Worker worker) {
    for (int i = 0; i < 1000; i++) {
      try {
        if (worker.step() == Worker.Step.DONE) {
          throw new AssertionError(worker.id() + " finished without crashing");
        }
      } catch (SimulatedCrash expected) {
        return;
      }
    }
    throw new AssertionError(worker.id() + " never crashed");
  }

  static Ledger<PlanState> ledger(Stores s) {
    return s.ledgers().ledger(PLAN, PlanState.class);
  }

  private static Worker worker(String id, Stores s, TaskWork work) {
    return new Worker(id, new PlanLedger(ledger(s)), s.artifacts(), work);
  }

  static List<String> ids(List<Operation> ops) {
    List<String> ids = new ArrayList<>();
    ops.forEach(o -> ids.add(o.id() + ":" + o.status().wireName()));
    return ids;
  }
}
