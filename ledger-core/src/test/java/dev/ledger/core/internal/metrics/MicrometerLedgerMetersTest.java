package dev.ledger.core.internal.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.ledger.core.Change;
import dev.ledger.core.CommandConflictException;
import dev.ledger.core.Cursor;
import dev.ledger.core.EventDraft;
import dev.ledger.core.EventFollower;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.LimitExceededException;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.StateType;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.core.memory.InMemoryLedgerStore;
import dev.ledger.testing.base.MutableClock;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ledger metrics a store records in a registry, after known operations. */
class MicrometerLedgerMetersTest {
  private static final StateType<JsonNode> JSON = StateType.of(JsonNode.class);

  @TempDir
  Path dir;

  private final MeterRegistry registry = new SimpleMeterRegistry();
  private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));

  private LedgerOptions options() {
    return LedgerOptions.defaults().withClock(clock).withCheckpointInterval(2)
        .withLimits(1024, 1024).withMeterRegistry(registry);
  }

  private static JsonNode state(int n) {
    return JsonNodeFactory.instance.objectNode().put("n", n);
  }

  private long commits(String outcome) {
    // Summed over the exception tag.
    return registry.find("ledger.commit").tag("outcome", outcome).timers().stream()
        .mapToLong(Timer::count).sum();
  }

  private double counter(String name) {
    return registry.get(name).counter().count();
  }

  @Test
  void fileStoreCountsCommitsByOutcomeJournalBytesAndCheckpoints() throws Exception {
    try (FileLedgerStore store = FileLedgerStore.open(dir, options())) {
      exerciseCommits(store);
      // Revisions 1 to 3 with an interval of 2: one checkpoint, at revision 2 ...
      assertThat(counter("ledger.checkpoints")).isEqualTo(1.0);
      store.close();
      // A close cuts the preallocated zeros: the segments hold what was written, and every
      // journal byte the store wrote is counted.
      long segmentBytes;
      try (Stream<Path> files = Files.walk(dir.resolve("ledgers"))) {
        segmentBytes = files.filter(p -> p.getParent().getFileName().toString()
            .equals("journal")).mapToLong(p -> p.toFile().length()).sum();
      }
      assertThat(counter("ledger.journal.written")).isEqualTo((double) segmentBytes)
          .isPositive();
      // ... and the close's final one, at revision 3.
      assertThat(counter("ledger.checkpoints")).isEqualTo(2.0);
    }
  }

  @Test
  void memoryStoreCountsCommitsByOutcomeAndJournalBytes() {
    try (InMemoryLedgerStore store = InMemoryLedgerStore.create(options())) {
      exerciseCommits(store);
      assertThat(counter("ledger.journal.written")).isPositive();
      assertThat(counter("ledger.checkpoints")).isZero();
    }
  }

  /** Three commits, a replay, two conflicts, an error; the same counts on any store. */
  private void exerciseCommits(LedgerStore store) {
    Ledger<JsonNode> ledger = store.ledger("orders", JSON);
    ledger.commit(Ledger.NO_REVISION, state(1), EventDraft.of("created", state(1))
        .withCommandId("c1"));
    ledger.commit(1, state(2), EventDraft.of("changed", state(2)));
    // The same command again: a replay, nothing written.
    ledger.commit(1, state(1), EventDraft.of("created", state(1)).withCommandId("c1"));
    assertThatThrownBy(() -> ledger.commit(1, state(3)))
        .isInstanceOf(RevisionConflictException.class);
    assertThatThrownBy(() -> ledger.commit(2, state(3), EventDraft.of("other", state(3))
        .withCommandId("c1"))).isInstanceOf(CommandConflictException.class);
    JsonNode big = JsonNodeFactory.instance.objectNode().put("s", "x".repeat(2000));
    assertThatThrownBy(() -> ledger.commit(2, big)).isInstanceOf(LimitExceededException.class);
    ledger.commit(2, state(3));

    assertThat(commits("committed")).isEqualTo(3);
    assertThat(commits("replayed")).isEqualTo(1);
    assertThat(commits("conflict")).isEqualTo(2);
    assertThat(commits("error")).isEqualTo(1);
    assertThat(registry.get("ledger.commit").tags("outcome", "conflict", "exception",
        "RevisionConflictException").timer().count()).isEqualTo(1);
    assertThat(registry.get("ledger.commit").tags("outcome", "conflict", "exception",
        "CommandConflictException").timer().count()).isEqualTo(1);
    assertThat(registry.get("ledger.commit").tags("outcome", "error", "exception",
        "LimitExceededException").timer().count()).isEqualTo(1);
    assertThat(registry.get("ledger.commit").tags("outcome", "committed", "exception",
        "none").timer().totalTime(TimeUnit.NANOSECONDS)).isPositive();
  }

  @Test
  void loadsAndEventPagesAreTimedByOutcome() {
    try (InMemoryLedgerStore store = InMemoryLedgerStore.create(options())) {
      Ledger<JsonNode> ledger = store.ledger("orders", JSON);
      assertThat(ledger.find()).isEmpty();
      ledger.commit(Ledger.NO_REVISION, state(1), EventDraft.of("created", state(1)));
      ledger.load();
      ledger.load();
      ledger.events(Cursor.START, 10);
      assertThatThrownBy(() -> ledger.events(Cursor.of("nonsense"), 10))
          .isInstanceOf(RuntimeException.class);

      assertThat(registry.get("ledger.load").tags("outcome", "found").timer().count())
          .isEqualTo(2);
      assertThat(registry.get("ledger.load").tags("outcome", "absent").timer().count())
          .isEqualTo(1);
      assertThat(registry.get("ledger.events").tags("outcome", "success").timer().count())
          .isEqualTo(1);
      assertThat(registry.get("ledger.events").tags("outcome", "error").timer().count())
          .isEqualTo(1);
    }
  }

  @Test
  void updateRetriesAreCounted() {
    try (InMemoryLedgerStore store = InMemoryLedgerStore.create(options())) {
      Ledger<JsonNode> ledger = store.ledger("orders", JSON);
      ledger.commit(Ledger.NO_REVISION, state(0));
      AtomicInteger calls = new AtomicInteger();
      ledger.update(current -> {
        if (calls.getAndIncrement() < 2) {
          // Another writer wins the revision this attempt read: the update starts over.
          ledger.commit(ledger.load().revision(), state(100 + calls.get()));
        }
        return Change.to(state(current.get("n").asInt() + 1));
      });
      assertThat(calls).hasValue(3);
      assertThat(counter("ledger.update.retries")).isEqualTo(2.0);
      assertThat(commits("conflict")).isEqualTo(2);
    }
  }

  @Test
  void openWritersFollowersAndFollowLagAreGaugedPerStoreAndLeaveWithIt() throws Exception {
    FileLedgerStore store = FileLedgerStore.open(dir, options().withOpenWriterLimit(2));
    String name = store.toString();
    Ledger<JsonNode> a = store.ledger("a", JSON);
    for (String root : List.of("a", "b", "c")) {
      store.ledger(root, JSON).commit(Ledger.NO_REVISION, state(1),
          EventDraft.of("created", state(1)));
    }
    assertThat(registry.get("ledger.writers.open").tag("store", name).gauge().value())
        .isEqualTo(2.0);

    EventFollower follower = a.follow(Cursor.START);
    assertThat(registry.get("ledger.followers").tag("store", name).gauge().value())
        .isEqualTo(1.0);
    assertThat(lagSeconds(name)).isZero();
    assertThat(follower.next(Duration.ofSeconds(10))).isPresent();
    // The consumer holds the event it got 30 s after its commit: the follower lags 30 s.
    clock.advance(Duration.ofSeconds(30));
    assertThat(lagSeconds(name)).isEqualTo(30.0);
    // Nothing newer: once a read finds that, the follower is caught up.
    assertThat(follower.poll()).isEmpty();
    assertThat(lagSeconds(name)).isZero();
    follower.close();
    assertThat(registry.get("ledger.followers").tag("store", name).gauge().value()).isZero();

    store.close();
    assertThat(registry.find("ledger.writers.open").tag("store", name).meters()).isEmpty();
    assertThat(registry.find("ledger.follow.lag").tag("store", name).meters()).isEmpty();
  }

  private double lagSeconds(String store) {
    return registry.get("ledger.follow.lag").tag("store", store).timeGauge()
        .value(TimeUnit.SECONDS);
  }

  @Test
  void aStoreWithoutRegistryRecordsNothing() {
    try (InMemoryLedgerStore store = InMemoryLedgerStore.create(LedgerOptions.defaults())) {
      store.ledger("orders", JSON).commit(Ledger.NO_REVISION, state(1));
    }
    try (FileLedgerStore store = FileLedgerStore.open(dir)) {
      store.ledger("orders", JSON).commit(Ledger.NO_REVISION, state(1));
    }
    // Not even Micrometer's global registry, which a careless recorder would fall back to.
    assertThat(Metrics.globalRegistry.getMeters()).isEmpty();
    assertThat(LedgerOptions.defaults().meterRegistry()).isNull();
  }

  @Test
  void theRegistryMustBeAMicrometerRegistry() {
    assertThatThrownBy(() -> new LedgerOptions(LedgerOptions.defaults().durability(),
        Duration.ZERO, clock, 1, 4096, 1024, 1024, 1, Duration.ZERO, b -> { }, 1, "registry"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("registry");
    assertThat(options().meterRegistry()).isSameAs(registry);
    assertThat(options().withoutMeterRegistry().meterRegistry()).isNull();
  }
}
