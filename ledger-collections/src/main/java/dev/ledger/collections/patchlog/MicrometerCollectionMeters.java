package dev.ledger.collections.patchlog;

import com.google.common.base.Preconditions;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * {@link CollectionMeters} on a Micrometer registry; names and tags are in the README. Timers
 * are kept per (collection, operation, status) once looked up, so that an operation costs a
 * map lookup, not a registry one.
 */
final class MicrometerCollectionMeters implements CollectionMeters {
  private final MeterRegistry registry;
  private final ConcurrentHashMap<TimerKey, Timer> operations = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<TimerKey, Timer> transactions = new ConcurrentHashMap<>();
  private final Counter retries;

  /** One timer's tags. */
  private record TimerKey(String collection, String operation, String status) {}

  MicrometerCollectionMeters(Object registry) {
    Preconditions.checkArgument(registry instanceof MeterRegistry,
        "the meter registry must be a Micrometer MeterRegistry: %s", registry);
    this.registry = (MeterRegistry) registry;
    this.retries = Counter.builder("collections.transaction.retries")
        .description("transaction callbacks run again after a revision conflict")
        .register(this.registry);
  }

  @Override
  public boolean recording() {
    return true;
  }

  @Override
  public void operation(String collection, String operation, long startNanos, boolean ok) {
    long elapsed = System.nanoTime() - startNanos;
    operations.computeIfAbsent(new TimerKey(collection, operation, ok ? OK : ERROR),
        key -> Timer.builder("collections.operation")
            .description("operations on collections, queues and key-values")
            .tag("collection", key.collection()).tag("operation", key.operation())
            .tag("status", key.status()).register(registry))
        .record(elapsed, TimeUnit.NANOSECONDS);
  }

  @Override
  public void transaction(String operation, String status, long startNanos) {
    long elapsed = System.nanoTime() - startNanos;
    transactions.computeIfAbsent(new TimerKey("", operation, status),
        key -> Timer.builder("collections.transaction")
            .description("transactions and reads of a partition, callback and commit")
            .tag("operation", key.operation()).tag("status", key.status()).register(registry))
        .record(elapsed, TimeUnit.NANOSECONDS);
  }

  @Override
  public void retry() {
    retries.increment();
  }
}
