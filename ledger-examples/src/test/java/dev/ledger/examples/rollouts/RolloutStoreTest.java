package dev.ledger.examples.rollouts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.ledger.collections.DocumentNotFoundException;
import dev.ledger.collections.Key;
import dev.ledger.collections.patchlog.PatchLogCollectionStore;
import dev.ledger.core.memory.InMemoryLedgerStore;
import dev.ledger.examples.rollouts.RolloutDocuments.AddedSpans;
import dev.ledger.examples.rollouts.RolloutDocuments.Attempt;
import dev.ledger.examples.rollouts.RolloutDocuments.AttemptStatus;
import dev.ledger.examples.rollouts.RolloutDocuments.Claim;
import dev.ledger.examples.rollouts.RolloutDocuments.ResourcesUpdate;
import dev.ledger.examples.rollouts.RolloutDocuments.Rollout;
import dev.ledger.examples.rollouts.RolloutDocuments.RolloutConfig;
import dev.ledger.examples.rollouts.RolloutDocuments.RolloutStatus;
import dev.ledger.examples.rollouts.RolloutDocuments.SpanDraft;
import dev.ledger.examples.rollouts.RolloutDocuments.Worker;
import dev.ledger.examples.rollouts.RolloutDocuments.WorkerStatus;
import dev.ledger.testing.base.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The rollout store's operations, one transaction each, on an in-memory store. */
class RolloutStoreTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final RolloutConfig RETRY_TWICE =
      new RolloutConfig(null, null, 2, Set.of(AttemptStatus.FAILED));

  private final InMemoryLedgerStore ledgers = InMemoryLedgerStore.create();
  private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T12:00:00Z"));
  private final AtomicInteger ids = new AtomicInteger();
  private final RolloutStore store = new RolloutStore(
      PatchLogCollectionStore.on(ledgers, RolloutStore.SCHEMA), "p", clock,
      () -> String.format("%012d", ids.incrementAndGet()));

  @AfterEach
  void close() {
    ledgers.close();
  }

  private Rollout rollout(String id) {
    return store.read(v -> v.collection("rollouts", Rollout.class).get(Key.of(id)))
        .orElseThrow();
  }

  private Worker worker(String id) {
    return store.read(v -> v.collection("workers", Worker.class).get(Key.of(id)))
        .orElseThrow();
  }

  private List<String> queue() {
    return store.read(v -> v.queue("rolloutQueue", String.class).peek(100));
  }

  @Test
  void resourcesAreVersionedAndTheLatestGoesWithNewRollouts() {
    ResourcesUpdate first = store.addResources(Map.of("model", JSON.textNode("a")));
    assertThat(first.version()).isEqualTo(1);
    clock.advance(Duration.ofSeconds(1));
    ResourcesUpdate other = store.addResources(Map.of("model", JSON.textNode("b")));
    clock.advance(Duration.ofMillis(500));
    ResourcesUpdate second = store.updateResources(first.resourcesId(),
        Map.of("model", JSON.textNode("c")));
    assertThat(second.version()).isEqualTo(2);
    assertThat(second.createTime()).isEqualTo(first.createTime());
    assertThat(second.updateTime()).isAfter(other.updateTime());
    assertThat(store.updateResources("rs-unknown", Map.of()).version()).isEqualTo(1);
    clock.advance(Duration.ofSeconds(1));
    store.updateResources(first.resourcesId(), Map.of());
    Rollout r = store.enqueueRollouts(List.of(JSON.objectNode()), null, RETRY_TWICE).get(0);
    assertThat(r.resourcesId()).isEqualTo(first.resourcesId());
  }

  @Test
  void dequeueClaimsInFifoOrderSkipsStaleIdsAndMarksAnEmptyPollIdle() {
    List<Rollout> rs = store.enqueueRollouts(List.<JsonNode>of(JSON.numberNode(1),
        JSON.numberNode(2)), "train", RETRY_TWICE);
    assertThat(queue()).containsExactly(rs.get(0).rolloutId(), rs.get(1).rolloutId());
    Claim claim = store.dequeue("w").orElseThrow();
    assertThat(claim.rollout().rolloutId()).isEqualTo(rs.get(0).rolloutId());
    assertThat(claim.attempt().sequenceId()).isEqualTo(1);
    assertThat(claim.attempt().status()).isEqualTo(AttemptStatus.PREPARING);
    assertThat(rollout(rs.get(0).rolloutId()).status()).isEqualTo(RolloutStatus.PREPARING);
    assertThat(worker("w").status()).isEqualTo(WorkerStatus.BUSY);
    assertThat(worker("w").currentAttemptId()).isEqualTo(claim.attempt().attemptId());
    // A stale entry behind the second rollout: the first one's id again, while it is no
    // longer waiting. The next poll takes the second rollout, the one after skips the stale
    // id and finds the queue empty.
    ledgersEnqueue(rs.get(0).rolloutId());
    assertThat(store.dequeue("v").orElseThrow().rollout().rolloutId())
        .isEqualTo(rs.get(1).rolloutId());
    assertThat(store.dequeue("u")).isEmpty();
    assertThat(queue()).isEmpty();
    assertThat(worker("u").status()).isEqualTo(WorkerStatus.IDLE);
  }

  private void ledgersEnqueue(String id) {
    PatchLogCollectionStore.on(ledgers, RolloutStore.SCHEMA).execute("p", tx -> {
      tx.queue("rolloutQueue", String.class).enqueue(List.of(id));
      return null;
    });
  }

  @Test
  void spansTakeSequenceIdsFromTheRolloutsCounterAndDuplicatesAreReported() {
    String id = store.enqueueRollouts(List.of(JSON.objectNode()), null, RETRY_TWICE).get(0)
        .rolloutId();
    Attempt a = store.dequeue("w").orElseThrow().attempt();
    AddedSpans first = store.addSpans(id, a.attemptId(), List.of(
        new SpanDraft("s1", "one", Map.of()), new SpanDraft("s2", "two", Map.of())));
    assertThat(first.stored()).extracting(s -> s.sequenceId()).containsExactly(1L, 2L);
    AddedSpans again = store.addSpans(id, a.attemptId(), List.of(
        new SpanDraft("s2", "two", Map.of()), new SpanDraft("s3", "three", Map.of())));
    assertThat(again.duplicates()).containsExactly("s2");
    assertThat(again.stored()).extracting(s -> s.sequenceId()).containsExactly(3L);
    assertThat(rollout(id).status()).isEqualTo(RolloutStatus.RUNNING);
    Attempt beat = store.read(v -> v.collection("attempts", Attempt.class)
        .get(Key.of(id, a.attemptId()))).orElseThrow();
    assertThat(beat.status()).isEqualTo(AttemptStatus.RUNNING);
    assertThat(beat.lastHeartbeatTime()).isEqualTo(clock.instant());
    long revision = ledgers.head("p").orElseThrow().revision();
    assertThatThrownBy(() -> store.addSpans(id, "at-nosuch", List.of(
        new SpanDraft("s9", "x", Map.of())))).isInstanceOf(DocumentNotFoundException.class)
        .hasMessageContaining("at-nosuch");
    assertThatThrownBy(() -> store.addSpans("ro-nosuch", a.attemptId(), List.of()))
        .isInstanceOf(DocumentNotFoundException.class).hasMessageContaining("ro-nosuch");
    assertThat(ledgers.head("p").orElseThrow().revision()).isEqualTo(revision);
  }

  @Test
  void aFailedAttemptRequeuesWhileRetriesRemainThenTheRolloutFails() {
    String id = store.enqueueRollouts(List.of(JSON.objectNode()), null, RETRY_TWICE).get(0)
        .rolloutId();
    Attempt a1 = store.dequeue("w").orElseThrow().attempt();
    store.updateAttempt(id, a1.attemptId(), AttemptStatus.FAILED);
    assertThat(rollout(id).status()).isEqualTo(RolloutStatus.REQUEUING);
    assertThat(rollout(id).endTime()).isNull();
    assertThat(queue()).containsExactly(id);
    assertThat(worker("w").status()).isEqualTo(WorkerStatus.IDLE);
    Attempt a2 = store.dequeue("v").orElseThrow().attempt();
    assertThat(a2.sequenceId()).isEqualTo(2);
    assertThat(a2.attemptId()).isNotEqualTo(a1.attemptId());
    Attempt ended = store.updateAttempt(id, "latest", AttemptStatus.FAILED);
    assertThat(ended.attemptId()).isEqualTo(a2.attemptId());
    assertThat(ended.endTime()).isEqualTo(clock.instant());
    assertThat(rollout(id).status()).isEqualTo(RolloutStatus.FAILED);
    assertThat(rollout(id).endTime()).isEqualTo(clock.instant());
    assertThat(queue()).isEmpty();
  }

  @Test
  void aSucceededAttemptEndsItsRollout() {
    String id = store.enqueueRollouts(List.of(JSON.objectNode()), null, RETRY_TWICE).get(0)
        .rolloutId();
    Attempt a = store.dequeue("w").orElseThrow().attempt();
    store.updateAttempt(id, a.attemptId(), AttemptStatus.SUCCEEDED);
    assertThat(rollout(id).status()).isEqualTo(RolloutStatus.SUCCEEDED);
    assertThat(store.allEnded()).isTrue();
  }

  @Test
  void theWatchdogFindsSilentAndOverlongAttemptsAndRequeuesTheirRollouts() {
    RolloutConfig watched = new RolloutConfig(60L, 10L, 3,
        Set.of(AttemptStatus.UNRESPONSIVE, AttemptStatus.TIMEOUT));
    List<Rollout> rs = store.enqueueRollouts(List.<JsonNode>of(JSON.numberNode(1),
        JSON.numberNode(2)), null, watched);
    String silent = rs.get(0).rolloutId();
    String busy = rs.get(1).rolloutId();
    Attempt a = store.dequeue("w").orElseThrow().attempt();
    Attempt b = store.dequeue("v").orElseThrow().attempt();
    clock.advance(Duration.ofSeconds(10));
    assertThat(store.watchdog()).isEmpty();
    store.addSpans(busy, b.attemptId(), List.of(new SpanDraft("s1", "beat", Map.of())));
    clock.advance(Duration.ofSeconds(1));
    assertThat(store.watchdog()).extracting(Attempt::attemptId).containsExactly(a.attemptId());
    assertThat(rollout(silent).status()).isEqualTo(RolloutStatus.REQUEUING);
    assertThat(queue()).containsExactly(silent);
    assertThat(worker("w").status()).isEqualTo(WorkerStatus.UNKNOWN);
    assertThat(worker("w").currentRolloutId()).isNull();
    assertThat(rollout(busy).status()).isEqualTo(RolloutStatus.RUNNING);
    for (int i = 0; i < 6; i++) {
      clock.advance(Duration.ofSeconds(9));
      store.addSpans(busy, b.attemptId(), List.of(new SpanDraft("t" + i, "beat", Map.of())));
    }
    // 65 s after its start, with fresh heartbeats: a timeout.
    assertThat(store.watchdog()).extracting(Attempt::status)
        .contains(AttemptStatus.TIMEOUT);
    assertThat(rollout(busy).status()).isEqualTo(RolloutStatus.REQUEUING);
    assertThat(store.watchdog()).isEmpty();
  }
}
