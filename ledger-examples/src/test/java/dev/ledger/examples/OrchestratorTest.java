package dev.ledger.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.artifacts.ArtifactOptions;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.memory.InMemoryArtifactStore;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.memory.InMemoryLedgerStore;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The orchestrator core on in-memory stores with a fixed clock: the pattern for testing code
 * built on ledger. No disk, no threads, no sleeps; every run is the same.
 */
class OrchestratorTest {
  private final InMemoryLedgerStore ledgers = InMemoryLedgerStore.create(
      LedgerOptions.defaults().withClock(DeterministicScenario.CLOCK));
  private final InMemoryArtifactStore artifacts = InMemoryArtifactStore.create(
      ArtifactOptions.defaults().withClock(DeterministicScenario.CLOCK));

  private DeterministicScenario.Result runScenario() {
    // In memory there is no "fresh instance over the same data": each session reuses the stores.
    return DeterministicScenario.run(
        () -> new DeterministicScenario.Stores(ledgers, artifacts, false));
  }

  @Test
  void everyTaskEndsAndThePermanentFailureIsGivenUpAfterMaxAttempts() {
    PlanState end = runScenario().finalState().state();

    assertThat(end.complete()).isTrue();
    String failing = Plans.alwaysFailing(DeterministicScenario.TASKS);
    assertThat(end.task(failing).status()).isEqualTo(TaskStatus.FAILED);
    assertThat(end.task(failing).failures()).isEqualTo(DeterministicScenario.MAX_ATTEMPTS);
    String last = Plans.id(DeterministicScenario.TASKS);
    assertThat(end.task(last).status()).isEqualTo(TaskStatus.SKIPPED);
    assertThat(end.tasks().values()).filteredOn(t -> !t.id().equals(failing)
        && !t.id().equals(last)).allMatch(t -> t.status() == TaskStatus.SUCCEEDED);
    assertThat(end.recoverable()).isEmpty();
    assertThat(end.conflicts()).isZero(); // one thread: nobody to race with
  }

  @Test
  void restartedSessionsRecoverStopRequestedPendingAndRunningOperations() {
    DeterministicScenario.Result r = runScenario();

    assertThat(r.stopRequested()).hasSize(2);
    assertThat(r.recoveredInSession2()).extracting(Operation::status)
        .contains(OperationStatus.STOP_REQUESTED, OperationStatus.PENDING);
    assertThat(r.recoveredInSession3()).extracting(Operation::status)
        .contains(OperationStatus.RUNNING);

    PlanState end = r.finalState().state();
    for (Operation found : r.recoveredInSession2()) {
      Operation now = end.operations().get(found.id());
      if (found.status() == OperationStatus.STOP_REQUESTED) {
        assertThat(now.status()).isEqualTo(OperationStatus.CANCELLED);
        assertThat(now.recoveredFrom()).isEqualTo(OperationStatus.STOP_REQUESTED);
      }
    }
    Operation resumed = r.recoveredInSession3().stream()
        .filter(o -> o.status() == OperationStatus.RUNNING).findFirst().orElseThrow();
    Operation now = end.operations().get(resumed.id());
    assertThat(now.status()).isIn(OperationStatus.SUCCEEDED, OperationStatus.FAILED);
    assertThat(now.owner()).isEqualTo("w5"); // the same attempt, run again by the new session
    assertThat(now.recoveredFrom()).isEqualTo(OperationStatus.RUNNING);
  }

  @Test
  void eachFinishedAttemptHasAFrozenSnapshotOfItsOutput() throws IOException {
    PlanState end = runScenario().finalState().state();

    for (Operation op : end.operations().values()) {
      Optional<ArtifactSnapshot> snapshot =
          artifacts.getForAttempt(DeterministicScenario.PLAN, op.id());
      if (op.status() == OperationStatus.SUCCEEDED || op.status() == OperationStatus.FAILED) {
        assertThat(op.snapshotId()).isEqualTo(snapshot.orElseThrow().snapshotId());
        byte[] expected = DeterministicScenario.work().perform(end, op).output();
        try (InputStream in = artifacts.blobs().open(
            snapshot.get().artifactRefs().get(0).blob())) {
          assertThat(in.readAllBytes()).isEqualTo(expected);
        }
      } else {
        assertThat(op.status()).isEqualTo(OperationStatus.CANCELLED);
      }
    }
  }

  @Test
  void theJournalHasAnEventForEveryTransitionEachWithACommandId() {
    runScenario();
    Ledger<PlanState> ledger = ledgers.ledger(DeterministicScenario.PLAN, PlanState.class);

    List<Event> events;
    try (Stream<Event> all = ledger.replay(Cursor.START)) {
      events = all.toList();
    }
    assertThat(events).extracting(Event::sequence)
        .containsExactlyElementsOf(Stream.iterate(1L, i -> i + 1).limit(events.size()).toList());
    assertThat(events).allMatch(e -> e.commandId() != null);
    assertThat(events).filteredOn(e -> e.type().startsWith("operation."))
        .allMatch(e -> e.operationId() != null);
    Map<String, Long> byType = events.stream()
        .collect(Collectors.groupingBy(Event::type, Collectors.counting()));
    assertThat(byType).containsKeys("plan.created", "orchestrator.draining",
        "orchestrator.recovered", "operation.pending", "operation.running",
        "operation.stop_requested", "operation.cancelled", "operation.succeeded",
        "operation.failed", "task.skipped", "task.failed");
  }

  @Test
  void creatingThePlanAgainReplaysTheFirstCommitAndWritesNothing() {
    DeterministicScenario.Result r = runScenario();
    Ledger<PlanState> ledger = ledgers.ledger(DeterministicScenario.PLAN, PlanState.class);

    var again = Orchestration.create(ledger, Plans.generate(DeterministicScenario.PLAN,
        DeterministicScenario.SEED, DeterministicScenario.TASKS,
        DeterministicScenario.MAX_ATTEMPTS));

    assertThat(again.replayed()).isTrue();
    assertThat(again.revision()).isEqualTo(1);
    assertThat(ledger.load().revision()).isEqualTo(r.finalState().revision());
  }

  @Test
  void twoRunsGiveTheSameJournal() {
    runScenario();
    InMemoryLedgerStore otherLedgers = InMemoryLedgerStore.create(
        LedgerOptions.defaults().withClock(DeterministicScenario.CLOCK));
    DeterministicScenario.run(() -> new DeterministicScenario.Stores(otherLedgers,
        InMemoryArtifactStore.create(
            ArtifactOptions.defaults().withClock(DeterministicScenario.CLOCK)), false));

    assertThat(journal(otherLedgers)).isEqualTo(journal(ledgers)).isNotEmpty();
  }

  private static List<Event> journal(InMemoryLedgerStore store) {
    try (Stream<Event> all = store.ledger(DeterministicScenario.PLAN, PlanState.class)
        .replay(Cursor.START)) {
      return all.toList();
    }
  }
}
