package dev.ledger.core.internal.metrics;

import com.google.common.base.Preconditions;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * {@link LedgerMeters} on a Micrometer registry. The meters every call records are looked up
 * once, here; a failure's timer (tagged with its exception) is looked up in the registry when
 * it happens. The names and tags are listed in the README's section on metrics.
 */
final class MicrometerLedgerMeters implements LedgerMeters {
  private static final String NONE = "none";

  private final MeterRegistry registry;
  private final Timer committed;
  private final Timer replayed;
  private final Timer found;
  private final Timer absent;
  private final Timer eventsRead;
  private final Counter retries;
  private final Counter journalBytes;
  private final Counter checkpoints;
  private final Counter journalForces;
  private final List<Meter> gauges = new ArrayList<>();

  MicrometerLedgerMeters(Object registry, String store, Gauges sources) {
    Preconditions.checkArgument(registry instanceof MeterRegistry,
        "the meter registry must be a Micrometer MeterRegistry: %s", registry);
    this.registry = (MeterRegistry) registry;
    this.committed = commitTimer(Outcome.COMMITTED, NONE);
    this.replayed = commitTimer(Outcome.REPLAYED, NONE);
    this.found = loadTimer("found", NONE);
    this.absent = loadTimer("absent", NONE);
    this.eventsRead = eventsTimer("success", NONE);
    this.retries = Counter.builder("ledger.update.retries")
        .description("Ledger.update attempts started over after a revision conflict")
        .register(this.registry);
    this.journalBytes = Counter.builder("ledger.journal.written").baseUnit("bytes")
        .description("journal records written, commits and patch commits")
        .register(this.registry);
    this.checkpoints = Counter.builder("ledger.checkpoints")
        .description("state checkpoints written")
        .register(this.registry);
    this.journalForces = Counter.builder("ledger.journal.forces")
        .description("forces of journals that made commits durable, one per group of commits")
        .register(this.registry);
    if (sources.openWriters() != null) {
      gauges.add(Gauge.builder("ledger.writers.open", sources.openWriters()::getAsInt)
          .description("ledgers holding open files for writing")
          .tag("store", store).strongReference(true).register(this.registry));
    }
    gauges.add(Gauge.builder("ledger.followers", sources.followers()::getAsInt)
        .description("event followers open")
        .tag("store", store).strongReference(true).register(this.registry));
    gauges.add(TimeGauge.builder("ledger.follow.lag", sources.followLagSeconds()::getAsDouble,
            TimeUnit.SECONDS)
        .description("largest age of the last event a follower delivered, until it is "
            + "caught up")
        .tag("store", store).strongReference(true).register(this.registry));
  }

  private Timer commitTimer(Outcome outcome, String exception) {
    return Timer.builder("ledger.commit")
        .description("Ledger.commit calls, by outcome")
        .tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
        .tag("exception", exception)
        .register(registry);
  }

  private Timer loadTimer(String outcome, String exception) {
    return Timer.builder("ledger.load")
        .description("reads of a ledger's latest state (load, find)")
        .tag("outcome", outcome)
        .tag("exception", exception)
        .register(registry);
  }

  private Timer eventsTimer(String outcome, String exception) {
    return Timer.builder("ledger.events")
        .description("pages of events read")
        .tag("outcome", outcome)
        .tag("exception", exception)
        .register(registry);
  }

  @Override
  public boolean recording() {
    return true;
  }

  @Override
  public void commit(long startNanos, Outcome outcome, Throwable failure) {
    long elapsed = System.nanoTime() - startNanos;
    Timer timer = switch (outcome) {
      case COMMITTED -> committed;
      case REPLAYED -> replayed;
      case CONFLICT, ERROR -> commitTimer(outcome, exceptionTag(failure));
    };
    timer.record(elapsed, TimeUnit.NANOSECONDS);
  }

  @Override
  public void load(long startNanos, boolean wasFound, Throwable failure) {
    long elapsed = System.nanoTime() - startNanos;
    Timer timer = failure != null ? loadTimer("error", exceptionTag(failure))
        : wasFound ? found : absent;
    timer.record(elapsed, TimeUnit.NANOSECONDS);
  }

  @Override
  public void events(long startNanos, Throwable failure) {
    long elapsed = System.nanoTime() - startNanos;
    Timer timer = failure == null ? eventsRead : eventsTimer("error", exceptionTag(failure));
    timer.record(elapsed, TimeUnit.NANOSECONDS);
  }

  @Override
  public void updateRetry() {
    retries.increment();
  }

  @Override
  public void journalWritten(long bytes) {
    journalBytes.increment(bytes);
  }

  @Override
  public void checkpointWritten() {
    checkpoints.increment();
  }

  @Override
  public void journalForced() {
    journalForces.increment();
  }

  @Override
  public void close() {
    for (Meter gauge : gauges) {
      registry.remove(gauge);
    }
  }

  private static String exceptionTag(Throwable failure) {
    return failure == null ? NONE : failure.getClass().getSimpleName();
  }
}
