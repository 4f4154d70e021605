package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.collections.CollectionOptions;
import dev.ledger.collections.CollectionStore;
import dev.ledger.collections.DuplicateKeyException;
import dev.ledger.collections.Key;
import dev.ledger.collections.Query;
import dev.ledger.collections.Schema;
import dev.ledger.core.memory.InMemoryLedgerStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The collection metrics a store records in a registry, after known operations. */
class MicrometerCollectionMetersTest {
  /**
   * A document.
   *
   * @param id the key
   * @param status a field
   */
  public record Doc(String id, String status) {}

  private static final Schema SCHEMA = Schema.builder()
      .collection("runs", Doc.class, List.of("id"))
      .queue("jobs", Integer.class)
      .keyValue("counters", String.class, Long.class)
      .build();

  private final MeterRegistry registry = new SimpleMeterRegistry();

  private long operations(String collection, String operation, String status) {
    Timer timer = registry.find("collections.operation").tags("collection", collection,
        "operation", operation, "status", status).timer();
    return timer == null ? 0 : timer.count();
  }

  private long transactions(String operation, String status) {
    Timer timer = registry.find("collections.transaction").tags("operation", operation,
        "status", status).timer();
    return timer == null ? 0 : timer.count();
  }

  @Test
  void operationsAreTimedPerCollectionOperationAndStatus() {
    InMemoryLedgerStore ledgers = InMemoryLedgerStore.create();
    CollectionStore db = PatchLogCollectionStore.on(ledgers, SCHEMA,
        CollectionOptions.defaults().withMeterRegistry(registry));
    db.execute("p1", tx -> {
      tx.collection("runs", Doc.class).insert(List.of(new Doc("a", "queued")));
      tx.collection("runs", Doc.class).upsert(List.of(new Doc("b", "queued")));
      tx.queue("jobs", Integer.class).enqueue(List.of(1, 2, 3));
      tx.keyValue("counters", String.class, Long.class).inc("done", 1L);
      return null;
    });
    assertThatThrownBy(() -> db.execute("p1", tx -> {
      tx.collection("runs", Doc.class).insert(List.of(new Doc("a", "again")));
      return null;
    })).isInstanceOf(DuplicateKeyException.class);
    db.execute("p1", "cmd-1", tx -> tx.queue("jobs", Integer.class).dequeue(2));
    // The same command again is replayed: its callback does not run.
    db.execute("p1", "cmd-1", tx -> tx.queue("jobs", Integer.class).dequeue(2));
    db.read("p1", view -> view.collection("runs", Doc.class).get(Key.of("a")));
    db.read("p1", view -> view.collection("runs", Doc.class).query(Query.all()));

    assertThat(operations("runs", "insert", "ok")).isEqualTo(1);
    assertThat(operations("runs", "insert", "error")).isEqualTo(1);
    assertThat(operations("runs", "upsert", "ok")).isEqualTo(1);
    assertThat(operations("runs", "get", "ok")).isEqualTo(1);
    assertThat(operations("runs", "query", "ok")).isEqualTo(1);
    assertThat(operations("jobs", "enqueue", "ok")).isEqualTo(1);
    assertThat(operations("jobs", "dequeue", "ok")).isEqualTo(1);
    assertThat(operations("counters", "inc", "ok")).isEqualTo(1);
    assertThat(transactions("execute", "ok")).isEqualTo(2);
    assertThat(transactions("execute", "error")).isEqualTo(1);
    assertThat(transactions("execute", "replayed")).isEqualTo(1);
    assertThat(transactions("read", "ok")).isEqualTo(2);
    // The ledger store under it was given no registry: it records nothing.
    assertThat(registry.find("ledger.commit").timers()).isEmpty();
  }

  @Test
  void transactionRetriesAreCounted() {
    InMemoryLedgerStore ledgers = InMemoryLedgerStore.create();
    CollectionStore db = PatchLogCollectionStore.on(ledgers, SCHEMA,
        CollectionOptions.defaults().withAttempts(5, Duration.ZERO)
            .withMeterRegistry(registry));
    CollectionStore other = PatchLogCollectionStore.on(ledgers, SCHEMA);
    int[] runs = {0};
    db.execute("p1", tx -> {
      tx.keyValue("counters", String.class, Long.class).inc("n", 1L);
      if (runs[0]++ == 0) {
        // Another store on the same ledgers commits first: this attempt conflicts.
        other.execute("p1", tx2 -> tx2.keyValue("counters", String.class, Long.class)
            .inc("n", 10L));
      }
      return null;
    });
    assertThat(runs[0]).isEqualTo(2);
    assertThat(registry.get("collections.transaction.retries").counter().count())
        .isEqualTo(1.0);
  }

  @Test
  void withoutRegistryNothingIsRecorded() {
    CollectionStore db = PatchLogCollectionStore.on(InMemoryLedgerStore.create(), SCHEMA);
    db.execute("p1", tx -> {
      tx.queue("jobs", Integer.class).enqueue(List.of(1));
      return null;
    });
    assertThat(Metrics.globalRegistry.getMeters()).isEmpty();
    assertThat(CollectionOptions.defaults().meterRegistry()).isNull();
    assertThatThrownBy(() -> new CollectionOptions(1, Duration.ZERO, 1.0, 0, 2, "registry"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
