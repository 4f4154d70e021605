package dev.ledger.artifacts;

import com.google.common.base.Preconditions;
import dev.ledger.core.Durability;
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
 */
public record ArtifactOptions(Durability durability, Duration lockTimeout, Clock clock) {
  /**
   * Validates every field.
   *
   * @param durability what is on stable storage when a write returns
   * @param lockTimeout how long a writer waits for the store lock; zero does not wait
   * @param clock the clock that stamps and measures ages
   * @throws NullPointerException if {@code durability} or {@code clock} is null
   * @throws IllegalArgumentException if {@code lockTimeout} is null or negative
   */
  public ArtifactOptions {
    Preconditions.checkNotNull(durability, "durability");
    Preconditions.checkArgument(lockTimeout != null && !lockTimeout.isNegative(),
        "lockTimeout must be zero or positive: %s", lockTimeout);
    Preconditions.checkNotNull(clock, "clock");
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
    return new ArtifactOptions(value, lockTimeout, clock);
  }

  /**
   * These options with another lock wait deadline.
   *
   * @param value how long to wait for the store lock; zero does not wait
   * @return new options, equal to these but for the lock timeout
   * @throws IllegalArgumentException if {@code value} is null or negative
   */
  public ArtifactOptions withLockTimeout(Duration value) {
    return new ArtifactOptions(durability, value, clock);
  }

  /**
   * These options with another clock.
   *
   * @param value the clock
   * @return new options, equal to these but for the clock
   * @throws NullPointerException if {@code value} is null
   */
  public ArtifactOptions withClock(Clock value) {
    return new ArtifactOptions(durability, lockTimeout, value);
  }
}
