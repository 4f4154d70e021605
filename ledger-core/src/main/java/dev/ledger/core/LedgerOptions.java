package dev.ledger.core;

import com.fasterxml.jackson.databind.json.JsonMapper;
import com.google.common.base.Preconditions;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Settings of a store. Start from {@link #defaults()} and change what you need:
 * {@code LedgerOptions.defaults().withClock(fixedClock).withCheckpointInterval(10)}.
 *
 * @param durability what is on stable storage when a commit returns; {@link Durability#SYNC}
 *     unless explicitly chosen otherwise
 * @param lockTimeout how long a writer waits for a ledger's lock before
 *     {@link LockTimeoutException}
 * @param clock the clock stamping commits and events; fix it for byte-identical files
 * @param checkpointInterval commits between two {@code state.json} checkpoints; a reader or a
 *     restarted writer replays at most this many journal records
 * @param segmentBytes size after which the journal starts a new segment file
 * @param maxStateBytes largest canonical JSON state accepted
 * @param maxEventPayloadBytes largest canonical JSON event payload accepted
 * @param updateAttempts attempts {@link Ledger#update} makes before giving up on conflicts
 * @param updateBackoff base of the jittered exponential backoff between update attempts
 * @param mapper configures the Jackson mapper that converts states to and from JSON trees
 *     (see {@link #withMapper})
 * @param openWriterLimit how many ledgers a file store keeps open for writing (see
 *     {@link #withOpenWriterLimit})
 * @param meterRegistry the Micrometer {@code MeterRegistry} the store records its metrics in,
 *     or null to record none (see {@link #withMeterRegistry}); typed {@code Object} so that
 *     these options, and a store without a registry, need no Micrometer on the class path
 */
public record LedgerOptions(
    Durability durability,
    Duration lockTimeout,
    Clock clock,
    int checkpointInterval,
    long segmentBytes,
    int maxStateBytes,
    int maxEventPayloadBytes,
    int updateAttempts,
    Duration updateBackoff,
    Consumer<JsonMapper.Builder> mapper,
    int openWriterLimit,
    Object meterRegistry) {

  /** The default of {@link #openWriterLimit()}. */
  public static final int DEFAULT_OPEN_WRITER_LIMIT = 64;

  private static final Consumer<JsonMapper.Builder> LIBRARY_MAPPER = builder -> { };

  /**
   * Validates every field.
   *
   * @param durability what is on stable storage when a commit returns
   * @param lockTimeout how long a writer waits for a ledger's lock; zero or positive
   * @param clock the clock stamping commits and events
   * @param checkpointInterval commits between two checkpoints; at least 1
   * @param segmentBytes size after which the journal starts a new segment; at least 4096
   * @param maxStateBytes largest canonical JSON state accepted; 2 bytes to 512 MiB
   * @param maxEventPayloadBytes largest canonical JSON event payload accepted; 2 bytes to
   *     64 MiB
   * @param updateAttempts attempts {@link Ledger#update} makes; at least 1
   * @param updateBackoff base of the backoff between update attempts; zero or positive
   * @param mapper configures the Jackson mapper of states (see {@link #withMapper})
   * @param openWriterLimit ledgers a file store keeps open for writing; at least 1
   * @param meterRegistry a Micrometer {@code MeterRegistry}, or null for no metrics
   * @throws NullPointerException if {@code durability}, {@code lockTimeout}, {@code clock},
   *     {@code updateBackoff} or {@code mapper} is null
   * @throws IllegalArgumentException if a number or duration is out of its range (see the
   *     {@code with...} methods), or {@code meterRegistry} is neither null nor a
   *     {@code MeterRegistry}
   */
  public LedgerOptions {
    Preconditions.checkNotNull(durability, "durability");
    Preconditions.checkNotNull(lockTimeout, "lockTimeout");
    Preconditions.checkArgument(!lockTimeout.isNegative(),
        "lockTimeout must be zero or positive: %s", lockTimeout);
    Preconditions.checkNotNull(clock, "clock");
    Preconditions.checkArgument(checkpointInterval >= 1,
        "checkpointInterval must be at least 1: %s", checkpointInterval);
    Preconditions.checkArgument(segmentBytes >= 4096,
        "segmentBytes must be at least 4096: %s", segmentBytes);
    Preconditions.checkArgument(maxStateBytes >= 2, "maxStateBytes too small: %s", maxStateBytes);
    Preconditions.checkArgument(maxStateBytes <= 512 * 1024 * 1024,
        "maxStateBytes must be at most 512 MiB: %s", maxStateBytes);
    Preconditions.checkArgument(maxEventPayloadBytes >= 2,
        "maxEventPayloadBytes too small: %s", maxEventPayloadBytes);
    Preconditions.checkArgument(maxEventPayloadBytes <= 64 * 1024 * 1024,
        "maxEventPayloadBytes must be at most 64 MiB: %s", maxEventPayloadBytes);
    Preconditions.checkArgument(updateAttempts >= 1,
        "updateAttempts must be at least 1: %s", updateAttempts);
    Preconditions.checkNotNull(updateBackoff, "updateBackoff");
    Preconditions.checkArgument(!updateBackoff.isNegative(),
        "updateBackoff must be zero or positive: %s", updateBackoff);
    Preconditions.checkNotNull(mapper, "mapper");
    Preconditions.checkArgument(openWriterLimit >= 1,
        "openWriterLimit must be at least 1: %s", openWriterLimit);
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
   * @param durability what is on stable storage when a commit returns
   * @param lockTimeout how long a writer waits for a ledger's lock; zero or positive
   * @param clock the clock stamping commits and events
   * @param checkpointInterval commits between two checkpoints; at least 1
   * @param segmentBytes size after which the journal starts a new segment; at least 4096
   * @param maxStateBytes largest canonical JSON state accepted; 2 bytes to 512 MiB
   * @param maxEventPayloadBytes largest canonical JSON event payload accepted; 2 bytes to
   *     64 MiB
   * @param updateAttempts attempts {@link Ledger#update} makes; at least 1
   * @param updateBackoff base of the backoff between update attempts; zero or positive
   * @param mapper configures the Jackson mapper of states (see {@link #withMapper})
   * @param openWriterLimit ledgers a file store keeps open for writing; at least 1
   * @throws NullPointerException if {@code durability}, {@code lockTimeout}, {@code clock},
   *     {@code updateBackoff} or {@code mapper} is null
   * @throws IllegalArgumentException if a number or duration is out of its range
   */
  public LedgerOptions(Durability durability, Duration lockTimeout, Clock clock,
      int checkpointInterval, long segmentBytes, int maxStateBytes, int maxEventPayloadBytes,
      int updateAttempts, Duration updateBackoff, Consumer<JsonMapper.Builder> mapper,
      int openWriterLimit) {
    this(durability, lockTimeout, clock, checkpointInterval, segmentBytes, maxStateBytes,
        maxEventPayloadBytes, updateAttempts, updateBackoff, mapper, openWriterLimit, null);
  }

  /**
   * The options of API 1.0, with the default {@link #openWriterLimit()}
   * ({@value #DEFAULT_OPEN_WRITER_LIMIT}).
   *
   * @param durability what is on stable storage when a commit returns
   * @param lockTimeout how long a writer waits for a ledger's lock; zero or positive
   * @param clock the clock stamping commits and events
   * @param checkpointInterval commits between two checkpoints; at least 1
   * @param segmentBytes size after which the journal starts a new segment; at least 4096
   * @param maxStateBytes largest canonical JSON state accepted; 2 bytes to 512 MiB
   * @param maxEventPayloadBytes largest canonical JSON event payload accepted; 2 bytes to
   *     64 MiB
   * @param updateAttempts attempts {@link Ledger#update} makes; at least 1
   * @param updateBackoff base of the backoff between update attempts; zero or positive
   * @param mapper configures the Jackson mapper of states (see {@link #withMapper})
   * @throws NullPointerException if {@code durability}, {@code lockTimeout}, {@code clock},
   *     {@code updateBackoff} or {@code mapper} is null
   * @throws IllegalArgumentException if a number or duration is out of its range
   */
  public LedgerOptions(Durability durability, Duration lockTimeout, Clock clock,
      int checkpointInterval, long segmentBytes, int maxStateBytes, int maxEventPayloadBytes,
      int updateAttempts, Duration updateBackoff, Consumer<JsonMapper.Builder> mapper) {
    this(durability, lockTimeout, clock, checkpointInterval, segmentBytes, maxStateBytes,
        maxEventPayloadBytes, updateAttempts, updateBackoff, mapper, DEFAULT_OPEN_WRITER_LIMIT,
        null);
  }

  /**
   * Durable, 30 s lock wait, UTC system clock, a checkpoint every 256 commits, 64 MiB
   * segments, 16 MiB states, 1 MiB event payloads, 64 update attempts from 1 ms backoff, the
   * library's mapper settings.
   *
   * @return the default options; the same values on every call
   */
  public static LedgerOptions defaults() {
    return new LedgerOptions(Durability.SYNC, Duration.ofSeconds(30), Clock.systemUTC(), 256,
        64L * 1024 * 1024, 16 * 1024 * 1024, 1024 * 1024, 64, Duration.ofMillis(1),
        LIBRARY_MAPPER, DEFAULT_OPEN_WRITER_LIMIT, null);
  }

  /**
   * These options with another durability.
   *
   * @param value the durability
   * @return the new options
   * @throws NullPointerException if {@code value} is null
   */
  public LedgerOptions withDurability(Durability value) {
    return new LedgerOptions(value, lockTimeout, clock, checkpointInterval, segmentBytes,
        maxStateBytes, maxEventPayloadBytes, updateAttempts, updateBackoff, mapper,
        openWriterLimit, meterRegistry);
  }

  /**
   * These options with another lock wait deadline.
   *
   * @param value how long a writer waits for a lock; zero or positive
   * @return the new options
   * @throws NullPointerException if {@code value} is null
   * @throws IllegalArgumentException if {@code value} is negative
   */
  public LedgerOptions withLockTimeout(Duration value) {
    return new LedgerOptions(durability, value, clock, checkpointInterval, segmentBytes,
        maxStateBytes, maxEventPayloadBytes, updateAttempts, updateBackoff, mapper,
        openWriterLimit, meterRegistry);
  }

  /**
   * These options with another clock.
   *
   * @param value the clock stamping commits and events
   * @return the new options
   * @throws NullPointerException if {@code value} is null
   */
  public LedgerOptions withClock(Clock value) {
    return new LedgerOptions(durability, lockTimeout, value, checkpointInterval, segmentBytes,
        maxStateBytes, maxEventPayloadBytes, updateAttempts, updateBackoff, mapper,
        openWriterLimit, meterRegistry);
  }

  /**
   * These options with another checkpoint interval.
   *
   * @param value commits between two checkpoints; at least 1
   * @return the new options
   * @throws IllegalArgumentException if {@code value} is less than 1
   */
  public LedgerOptions withCheckpointInterval(int value) {
    return new LedgerOptions(durability, lockTimeout, clock, value, segmentBytes,
        maxStateBytes, maxEventPayloadBytes, updateAttempts, updateBackoff, mapper,
        openWriterLimit, meterRegistry);
  }

  /**
   * These options with another journal segment size.
   *
   * @param value bytes after which a new segment starts; at least 4096
   * @return the new options
   * @throws IllegalArgumentException if {@code value} is less than 4096
   */
  public LedgerOptions withSegmentBytes(long value) {
    return new LedgerOptions(durability, lockTimeout, clock, checkpointInterval, value,
        maxStateBytes, maxEventPayloadBytes, updateAttempts, updateBackoff, mapper,
        openWriterLimit, meterRegistry);
  }

  /**
   * These options with other size limits. A file store records the largest limits its
   * writers used, so that every reader of its directory reads what they wrote.
   *
   * @param stateBytes largest canonical JSON state, 2 bytes to 512 MiB
   * @param eventPayloadBytes largest canonical JSON event payload, 2 bytes to 64 MiB
   * @return the new options
   * @throws IllegalArgumentException if a limit is out of its range
   */
  public LedgerOptions withLimits(int stateBytes, int eventPayloadBytes) {
    return new LedgerOptions(durability, lockTimeout, clock, checkpointInterval, segmentBytes,
        stateBytes, eventPayloadBytes, updateAttempts, updateBackoff, mapper,
        openWriterLimit, meterRegistry);
  }

  /**
   * These options with another update retry policy.
   *
   * @param attempts attempts {@link Ledger#update} makes; at least 1
   * @param backoff base of the jittered exponential backoff; zero or positive
   * @return the new options
   * @throws NullPointerException if {@code backoff} is null
   * @throws IllegalArgumentException if {@code attempts} is less than 1 or {@code backoff}
   *     is negative
   */
  public LedgerOptions withUpdateRetry(int attempts, Duration backoff) {
    return new LedgerOptions(durability, lockTimeout, clock, checkpointInterval, segmentBytes,
        maxStateBytes, maxEventPayloadBytes, attempts, backoff, mapper, openWriterLimit,
        meterRegistry);
  }

  /**
   * These options with a customized state mapper. Each store builds one Jackson mapper from
   * the library's settings ({@code java.time} values as ISO-8601 strings, unknown properties
   * ignored when reading, so that a state with a field its class no longer has still loads)
   * and then lets {@code customizer} change them: register modules, a naming strategy, or
   * {@code DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES} to refuse unknown fields.
   *
   * <p>The mapper only converts states to and from JSON trees. The bytes on disk are always
   * the library's canonical JSON (keys sorted, compact), so files stay deterministic whatever
   * the mapper does; event payloads are trees already ({@link EventDraft#of} and
   * {@link Event#payloadAs} use the library's settings).
   *
   * @param customizer changes the mapper's builder; replaces an earlier customizer
   * @return new options
   * @throws NullPointerException if {@code customizer} is null
   */
  public LedgerOptions withMapper(Consumer<JsonMapper.Builder> customizer) {
    return new LedgerOptions(durability, lockTimeout, clock, checkpointInterval, segmentBytes,
        maxStateBytes, maxEventPayloadBytes, updateAttempts, updateBackoff, customizer,
        openWriterLimit, meterRegistry);
  }

  /**
   * These options with another bound on the ledgers a file store keeps open for writing.
   * A ledger that commits keeps two file descriptors (its journal segment and its lock file),
   * a third when it is also read through its patch log (a read channel on the segment, which
   * checks before each collection transaction that nothing was committed since), and up to
   * 128 KiB of preallocated zeros at the end of its journal. A file store keeps at
   * most {@code value} ledgers so; when one more commits, the least recently committed one is
   * parked: its zeros are cut (as a close cuts them), its descriptors are closed, and it
   * stays loaded in memory, so its next commit reopens the segment without replaying the
   * journal. A ledger busy committing is parked later. So a process holds about
   * {@code 2 * value} descriptors for its writers (at most {@code 3 * value} through patch
   * logs) however many ledgers it writes. The
   * in-memory store ignores this option.
   *
   * @param value ledgers kept open for writing; at least 1 (default
   *     {@value #DEFAULT_OPEN_WRITER_LIMIT})
   * @return the new options
   * @throws IllegalArgumentException if {@code value} is less than 1
   */
  public LedgerOptions withOpenWriterLimit(int value) {
    return new LedgerOptions(durability, lockTimeout, clock, checkpointInterval, segmentBytes,
        maxStateBytes, maxEventPayloadBytes, updateAttempts, updateBackoff, mapper, value,
        meterRegistry);
  }

  /**
   * These options with a Micrometer registry that the store records its metrics in: commit,
   * load and event-read timers, update retries, journal bytes and checkpoints, and gauges of
   * open writers, followers and follow lag (the README's section on metrics lists the names
   * and tags). Without one (the default) nothing is recorded and no Micrometer class is
   * loaded: Micrometer is an optional dependency, needed on the class path only by callers
   * of this method.
   *
   * <p>Timers and counters of several stores on one registry add up. Gauges are per store,
   * tagged {@code store} with the store's name, and leave the registry when the store
   * closes.
   *
   * @param registry the registry
   * @return the new options
   * @throws NullPointerException if {@code registry} is null
   */
  @SuppressWarnings("exports") // Micrometer is optional: its caller reads it
  public LedgerOptions withMeterRegistry(MeterRegistry registry) {
    Preconditions.checkNotNull(registry, "registry");
    return new LedgerOptions(durability, lockTimeout, clock, checkpointInterval, segmentBytes,
        maxStateBytes, maxEventPayloadBytes, updateAttempts, updateBackoff, mapper,
        openWriterLimit, registry);
  }

  /**
   * These options without a meter registry: the store records no metrics.
   *
   * @return the new options
   */
  public LedgerOptions withoutMeterRegistry() {
    return new LedgerOptions(durability, lockTimeout, clock, checkpointInterval, segmentBytes,
        maxStateBytes, maxEventPayloadBytes, updateAttempts, updateBackoff, mapper,
        openWriterLimit, null);
  }
}
