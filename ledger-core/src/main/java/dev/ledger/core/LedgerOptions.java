package dev.ledger.core;

import com.google.common.base.Preconditions;
import java.time.Clock;
import java.time.Duration;

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
    Duration updateBackoff) {

  /**
   * Validates every field.
   *
   * @throws NullPointerException if {@code durability}, {@code lockTimeout}, {@code clock} or
   *     {@code updateBackoff} is null
   * @throws IllegalArgumentException if a number or duration is out of its range (see the
   *     {@code with...} methods)
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
  }

  /**
   * Durable, 30 s lock wait, UTC system clock, a checkpoint every 256 commits, 64 MiB
   * segments, 16 MiB states, 1 MiB event payloads, 64 update attempts from 1 ms backoff.
   */
  public static LedgerOptions defaults() {
    return new LedgerOptions(Durability.SYNC, Duration.ofSeconds(30), Clock.systemUTC(), 256,
        64L * 1024 * 1024, 16 * 1024 * 1024, 1024 * 1024, 64, Duration.ofMillis(1));
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
        maxStateBytes, maxEventPayloadBytes, updateAttempts, updateBackoff);
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
        maxStateBytes, maxEventPayloadBytes, updateAttempts, updateBackoff);
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
        maxStateBytes, maxEventPayloadBytes, updateAttempts, updateBackoff);
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
        maxStateBytes, maxEventPayloadBytes, updateAttempts, updateBackoff);
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
        maxStateBytes, maxEventPayloadBytes, updateAttempts, updateBackoff);
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
        stateBytes, eventPayloadBytes, updateAttempts, updateBackoff);
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
        maxStateBytes, maxEventPayloadBytes, attempts, backoff);
  }
}
