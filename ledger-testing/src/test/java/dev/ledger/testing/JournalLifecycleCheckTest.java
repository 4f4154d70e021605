package dev.ledger.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.ledger.collections.CollectionStore;
import dev.ledger.collections.Key;
import dev.ledger.collections.Schema;
import dev.ledger.collections.patchlog.PatchLogCollectionStore;
import dev.ledger.core.memory.InMemoryLedgerStore;
import dev.ledger.registry.NewRun;
import dev.ledger.registry.RegistryOptions;
import dev.ledger.registry.RunRecord;
import dev.ledger.registry.RunRegistry;
import dev.ledger.registry.RunStatus;
import dev.ledger.registry.TransitionDetails;
import dev.ledger.registry.collections.CollectionRunRegistry;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The journal check finds what a writer that bypasses the registry could break. */
class JournalLifecycleCheckTest {
  /** A run event written behind the registry's back. */
  public record ForgedEvent(String runId, long sequence, String type, String from, String to,
      JsonNode details, long createdAtMs) {}

  /** The fields of a run document the forger changes. */
  public record ForgedRun(String id, String status, long revision) {}

  @TempDir Path dir;
  private InMemoryLedgerStore store;
  private RunRegistry registry;
  private RunRecord run;
  private CollectionStore forger;

  @BeforeEach
  void allocate() {
    store = InMemoryLedgerStore.create();
    registry = CollectionRunRegistry.on(store);
    registry.registerWorkspace("w", dir);
    run = registry.allocateRun(NewRun.builder("w", "r-1").build());
    forger = PatchLogCollectionStore.on(store, Schema.builder()
        .collection("runs", ForgedRun.class, List.of("id"))
        .collection("runEvents", ForgedEvent.class, List.of("runId", "sequence"))
        .build());
  }

  @AfterEach
  void close() {
    store.close();
  }

  private void forge(String from, String to, long sequence, String storedStatus) {
    forger.execute(RegistryOptions.DEFAULT_PARTITION, tx -> {
      tx.collection("runs", ForgedRun.class).update(List.of(new ForgedRun(run.id(),
          storedStatus, sequence)), List.of("status", "revision"));
      tx.collection("runEvents", ForgedEvent.class).insert(List.of(new ForgedEvent(run.id(),
          sequence, "status_changed", from, to, JsonNodeFactory.instance.objectNode(), 0)));
      return null;
    });
  }

  @Test
  void aJournalWrittenByTheRegistryPasses() {
    registry.transitionRun(run.id(), RunStatus.RUNNING, 1, TransitionDetails.none());
    registry.transitionRun(run.id(), RunStatus.COMPLETED, 2, TransitionDetails.none());
    assertThat(JournalLifecycleCheck.check(store, RegistryOptions.DEFAULT_PARTITION))
        .isEqualTo(2);
  }

  @Test
  void aTransitionTheLifecycleDoesNotAllowFails() {
    forge("starting", "completed", 2, "completed");
    assertThatThrownBy(() -> JournalLifecycleCheck.check(store,
        RegistryOptions.DEFAULT_PARTITION)).isInstanceOf(AssertionError.class)
        .hasMessageContaining("starting -> completed is not allowed");
  }

  @Test
  void anEventThatLeavesAnotherStatusThanTheRunHadFails() {
    forge("running", "completed", 2, "completed");
    assertThatThrownBy(() -> JournalLifecycleCheck.check(store,
        RegistryOptions.DEFAULT_PARTITION)).isInstanceOf(AssertionError.class)
        .hasMessageContaining("leaves running but the run was starting");
  }

  @Test
  void aSkippedSequenceFails() {
    forge("starting", "running", 3, "running");
    assertThatThrownBy(() -> JournalLifecycleCheck.check(store,
        RegistryOptions.DEFAULT_PARTITION)).isInstanceOf(AssertionError.class)
        .hasMessageContaining("sequence follows 1");
  }

  @Test
  void aStoredStatusThatDisagreesWithItsEventFails() {
    forge("starting", "running", 2, "failed");
    assertThatThrownBy(() -> JournalLifecycleCheck.check(store,
        RegistryOptions.DEFAULT_PARTITION)).isInstanceOf(AssertionError.class)
        .hasMessageContaining("is stored as failed");
  }

  @Test
  void aPartitionNeverWrittenHasNothingToCheck() {
    assertThat(JournalLifecycleCheck.check(store, "elsewhere")).isZero();
    assertThat(registry.run(run.id()).orElseThrow().status()).isEqualTo(RunStatus.STARTING);
    String stored = forger.read(RegistryOptions.DEFAULT_PARTITION, view -> view.collection(
        "runs", ForgedRun.class).get(Key.of(run.id())).orElseThrow().status());
    assertThat(stored).isEqualTo("starting");
  }
}
