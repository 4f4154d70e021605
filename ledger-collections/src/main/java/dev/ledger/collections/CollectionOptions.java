package dev.ledger.collections;

import com.google.common.base.Preconditions;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;

/**
 * How a {@link CollectionStore} runs its transactions and checkpoints.
 *
 * @param attempts how many times a transaction runs its callback before a revision conflict
 *     with another process is thrown; at least 1
 * @param backoff base of the jittered, doubling pause between attempts (capped at 100 ms);
 *     zero or positive
 * @param checkpointFraction a checkpoint is written after a commit when the journal since the
 *     last one exceeds this fraction of the partition's data bytes; above 0
 * @param checkpointFloorBytes and exceeds this many bytes, so that small partitions do not
 *     checkpoint on every commit; zero or positive
 * @param maxDocumentBytes the largest document, queue item or value accepted, as compact
 *     JSON; at least 2
 * @param meterRegistry the Micrometer {@code MeterRegistry} the store records its metrics in,
 *     or null to record none (see {@link #withMeterRegistry}); typed {@code Object} so that
 *     these options, and a store without a registry, need no Micrometer on the class path
 */
public record CollectionOptions(int attempts, Duration backoff, double checkpointFraction,
    long checkpointFloorBytes, int maxDocumentBytes, Object meterRegistry) {

  /**
   * Checks every field.
   *
   * @param attempts the attempts
   * @param backoff the backoff base
   * @param checkpointFraction the checkpoint fraction
   * @param checkpointFloorBytes the checkpoint floor
   * @param maxDocumentBytes the document limit
   * @param meterRegistry a Micrometer {@code MeterRegistry}, or null for no metrics
   * @throws IllegalArgumentException if a value is out of range, or {@code meterRegistry} is
   *     neither null nor a {@code MeterRegistry}
   * @throws NullPointerException if {@code backoff} is null
   */
  public CollectionOptions {
    Preconditions.checkArgument(attempts >= 1, "attempts must be >= 1: %s", attempts);
    Preconditions.checkNotNull(backoff, "backoff");
    Preconditions.checkArgument(!backoff.isNegative(), "backoff must be >= 0: %s", backoff);
    Preconditions.checkArgument(checkpointFraction > 0 && !Double.isNaN(checkpointFraction),
        "checkpointFraction must be > 0: %s", checkpointFraction);
    Preconditions.checkArgument(checkpointFloorBytes >= 0,
        "checkpointFloorBytes must be >= 0: %s", checkpointFloorBytes);
    Preconditions.checkArgument(maxDocumentBytes >= 2, "maxDocumentBytes must be >= 2: %s",
        maxDocumentBytes);
    if (meterRegistry != null) {
      // By class name: a test of the class would load Micrometer, which the class path of a
      // store without metrics need not have.
      Preconditions.checkArgument(isMeterRegistry(meterRegistry.getClass()),
          "meterRegistry must be a Micrometer MeterRegistry: %s", meterRegistry);
    }
  }

  private static boolean isMeterRegistry(Class<?> type) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      if (c.getName().equals("io.micrometer.core.instrument.MeterRegistry")) {
        return true;
      }
    }
    return false;
  }

  /**
   * The options before metrics, with no meter registry.
   *
   * @param attempts the attempts
   * @param backoff the backoff base
   * @param checkpointFraction the checkpoint fraction
   * @param checkpointFloorBytes the checkpoint floor
   * @param maxDocumentBytes the document limit
   * @throws IllegalArgumentException if a value is out of range
   * @throws NullPointerException if {@code backoff} is null
   */
  public CollectionOptions(int attempts, Duration backoff, double checkpointFraction,
      long checkpointFloorBytes, int maxDocumentBytes) {
    this(attempts, backoff, checkpointFraction, checkpointFloorBytes, maxDocumentBytes, null);
  }

  /**
   * 64 attempts from a 1 ms backoff, a checkpoint when the journal outgrows the data (and
   * 64 KiB), documents up to 1 MiB.
   *
   * @return the defaults
   */
  public static CollectionOptions defaults() {
    return new CollectionOptions(64, Duration.ofMillis(1), 1.0, 64 * 1024, 1024 * 1024);
  }

  /**
   * These options with another checkpoint policy.
   *
   * @param fraction the journal-to-data fraction
   * @param floorBytes the floor
   * @return new options
   * @throws IllegalArgumentException if a value is out of range
   */
  public CollectionOptions withCheckpoints(double fraction, long floorBytes) {
    return new CollectionOptions(attempts, backoff, fraction, floorBytes, maxDocumentBytes,
        meterRegistry);
  }

  /**
   * These options with another retry policy.
   *
   * @param value the attempts
   * @param base the backoff base
   * @return new options
   * @throws IllegalArgumentException if a value is out of range
   */
  public CollectionOptions withAttempts(int value, Duration base) {
    return new CollectionOptions(value, base, checkpointFraction, checkpointFloorBytes,
        maxDocumentBytes, meterRegistry);
  }

  /**
   * These options with another document limit.
   *
   * @param bytes the limit
   * @return new options
   * @throws IllegalArgumentException if the value is out of range
   */
  public CollectionOptions withMaxDocumentBytes(int bytes) {
    return new CollectionOptions(attempts, backoff, checkpointFraction, checkpointFloorBytes,
        bytes, meterRegistry);
  }

  /**
   * These options with a Micrometer registry that the store records its metrics in: a timer
   * per collection operation, tagged with the collection, the operation and its status, one
   * per transaction and read, and transaction retries (the README's section on metrics lists
   * the names and tags). Without one (the default) nothing is recorded and no Micrometer class
   * is loaded.
   *
   * @param registry the registry
   * @return the new options
   * @throws NullPointerException if {@code registry} is null
   */
  @SuppressWarnings("exports") // Micrometer is optional: its caller reads it
  public CollectionOptions withMeterRegistry(MeterRegistry registry) {
    Preconditions.checkNotNull(registry, "registry");
    return new CollectionOptions(attempts, backoff, checkpointFraction, checkpointFloorBytes,
        maxDocumentBytes, registry);
  }
}
