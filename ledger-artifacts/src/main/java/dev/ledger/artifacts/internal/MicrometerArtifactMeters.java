package dev.ledger.artifacts.internal;

import com.google.common.base.Preconditions;
import dev.ledger.artifacts.BlobCollection;
import dev.ledger.artifacts.CleanupMode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** {@link ArtifactMeters} on a Micrometer registry; names and tags are in the README. */
final class MicrometerArtifactMeters implements ArtifactMeters {
  private final Timer put;
  private final Timer putFailed;
  private final DistributionSummary putBytes;
  private final Map<FreezeOutcome, Counter> freezes = new EnumMap<>(FreezeOutcome.class);
  private final Map<CleanupMode, Counter> collections = new EnumMap<>(CleanupMode.class);
  private final Counter blobsRemoved;
  private final Counter bytesRemoved;

  MicrometerArtifactMeters(Object registry) {
    Preconditions.checkArgument(registry instanceof MeterRegistry,
        "the meter registry must be a Micrometer MeterRegistry: %s", registry);
    MeterRegistry meters = (MeterRegistry) registry;
    this.put = putTimer(meters, "success");
    this.putFailed = putTimer(meters, "error");
    this.putBytes = DistributionSummary.builder("artifacts.blob.put.size").baseUnit("bytes")
        .description("bytes read by a blob put, stored or already present")
        .register(meters);
    for (FreezeOutcome outcome : FreezeOutcome.values()) {
      freezes.put(outcome, Counter.builder("artifacts.freeze")
          .description("attempt freezes, by outcome")
          .tag("outcome", outcome.name().toLowerCase(Locale.ROOT)).register(meters));
    }
    for (CleanupMode mode : CleanupMode.values()) {
      collections.put(mode, Counter.builder("artifacts.gc")
          .description("garbage collections of blobs, by mode")
          .tag("mode", mode.name().toLowerCase(Locale.ROOT)).register(meters));
    }
    this.blobsRemoved = Counter.builder("artifacts.gc.removed")
        .description("unreferenced blobs removed by garbage collections (not dry runs)")
        .register(meters);
    this.bytesRemoved = Counter.builder("artifacts.gc.removed.size").baseUnit("bytes")
        .description("bytes of the blobs removed by garbage collections (not dry runs)")
        .register(meters);
  }

  private static Timer putTimer(MeterRegistry meters, String outcome) {
    return Timer.builder("artifacts.blob.put").description("blob puts, by outcome")
        .tag("outcome", outcome).register(meters);
  }

  @Override
  public boolean recording() {
    return true;
  }

  @Override
  public void put(long startNanos, long bytes, Throwable failure) {
    long elapsed = System.nanoTime() - startNanos;
    (failure == null ? put : putFailed).record(elapsed, TimeUnit.NANOSECONDS);
    if (failure == null) {
      putBytes.record(bytes);
    }
  }

  @Override
  public void freeze(FreezeOutcome outcome) {
    freezes.get(outcome).increment();
  }

  @Override
  public void collected(CleanupMode mode, BlobCollection result) {
    collections.get(mode).increment();
    if (mode == CleanupMode.DELETE) {
      blobsRemoved.increment(result.removed().size());
      bytesRemoved.increment(result.bytesRemoved());
    }
  }
}
