package dev.ledger.artifacts;

import com.google.common.base.Preconditions;
import dev.ledger.core.Durability;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;

/**
 * Settings of an artifact store: only what it uses. Start from {@link #defaults()} and change
 * what you need: {@code ArtifactOptions.defaults().withClock(fixedClock)}.
 *
 * <p>A file store uses all three; an in-memory store uses only the clock (nothing is forced
 * and nothing is locked across processes). A store opened read-only uses none of them: it
 * stamps, forces and locks nothing.
 *
 * @param durability what is on stable storage when a put, freeze or cleanup returns:
 *     {@link Durability#SYNC} (the default) forces each new file and its directory, so it
 *     survives a power cut; {@link Durability#UNSAFE_NO_SYNC} forces nothing
 * @param lockTimeout how long a put, freeze or cleanup waits for the store lock (held by a
 *     garbage collection for its whole run, by the others for a short final step) before
 *     {@link dev.ledger.core.LockTimeoutException}
 * @param clock the clock that stamps {@link ArtifactSnapshot#frozenAt()} and blob put times,
 *     and that measures the ages cleanups compare with their minimum age or grace period;
 *     fix it for byte-identical files
 * @param meterRegistry the Micrometer {@code MeterRegistry} the store records its metrics in,
 *     or null to record none (see {@link #withMeterRegistry}); typed {@code Object} so that
 *     these options, and a store without a registry, need no Micrometer on the class path
 */
public record ArtifactOptions(Durability durability, Duration lockTimeout, Clock clock,
    Object meterRegistry) {
  /**
   * Validates every field.
   *
   * @param durability what is on stable storage when a write returns
   * @param lockTimeout how long a writer waits for the store lock; zero does not wait
   * @param clock the clock that stamps and measures ages
   * @param meterRegistry a Micrometer {@code MeterRegistry}, or null for no metrics
   * @throws NullPointerException if {@code durability} or {@code clock} is null
   * @throws IllegalArgumentException if {@code lockTimeout} is null or negative, or
   *     {@code meterRegistry} is neither null nor a {@code MeterRegistry}
   */
  public ArtifactOptions {
    Preconditions.checkNotNull(durability, "durability");
    Preconditions.checkArgument(lockTimeout != null && !lockTimeout.isNegative(),
        "lockTimeout must be zero or positive: %s", lockTimeout);
    Preconditions.checkNotNull(clock, "clock");
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
   * @param durability what is on stable storage when a write returns
   * @param lockTimeout how long a writer waits for the store lock; zero does not wait
   * @param clock the clock that stamps and measures ages
   * @throws NullPointerException if {@code durability} or {@code clock} is null
   * @throws IllegalArgumentException if {@code lockTimeout} is null or negative
   */
  public ArtifactOptions(Durability durability, Duration lockTimeout, Clock clock) {
    this(durability, lockTimeout, clock, null);
  }

  /**
   * Durable ({@link Durability#SYNC}), a 30 s lock wait, the UTC system clock.
   *
   * @return the default options
   */
  public static ArtifactOptions defaults() {
    return new ArtifactOptions(Durability.SYNC, Duration.ofSeconds(30), Clock.systemUTC());
  }

  /**
   * These options with another durability.
   *
   * @param value the durability
   * @return new options, equal to these but for the durability
   * @throws NullPointerException if {@code value} is null
   */
  public ArtifactOptions withDurability(Durability value) {
    return new ArtifactOptions(value, lockTimeout, clock, meterRegistry);
  }

  /**
   * These options with another lock wait deadline.
   *
   * @param value how long to wait for the store lock; zero does not wait
   * @return new options, equal to these but for the lock timeout
   * @throws IllegalArgumentException if {@code value} is null or negative
   */
  public ArtifactOptions withLockTimeout(Duration value) {
    return new ArtifactOptions(durability, value, clock, meterRegistry);
  }

  /**
   * These options with another clock.
   *
   * @param value the clock
   * @return new options, equal to these but for the clock
   * @throws NullPointerException if {@code value} is null
   */
  public ArtifactOptions withClock(Clock value) {
    return new ArtifactOptions(durability, lockTimeout, value, meterRegistry);
  }

  /**
   * These options with a Micrometer registry that the store records its metrics in: time and
   * bytes of blob puts, freezes by outcome, garbage collections and what they removed (the
   * README's section on metrics lists the names and tags). Without one (the default) nothing
   * is recorded and no Micrometer class is loaded. A store opened read-only records nothing.
   *
   * @param registry the registry
   * @return the new options
   * @throws NullPointerException if {@code registry} is null
   */
  @SuppressWarnings("exports") // Micrometer is optional: its caller reads it
  public ArtifactOptions withMeterRegistry(MeterRegistry registry) {
    Preconditions.checkNotNull(registry, "registry");
    return new ArtifactOptions(durability, lockTimeout, clock, registry);
  }
}
