package dev.ledger.testing.base;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A UTC clock that tests move by hand: it reads the same instant until {@link #set} or
 * {@link #advance} changes it. Give it to a store (through its options) and the store stamps
 * commits, events and snapshots with it, so that a test controls every timestamp and ages
 * things without waiting. Thread-safe: a change is seen at once by every thread.
 */
public final class MutableClock extends Clock {
  private final AtomicReference<Instant> now;

  /**
   * A clock reading {@code start} until moved.
   *
   * @param start the first instant it reads
   * @throws NullPointerException if {@code start} is null
   */
  public MutableClock(Instant start) {
    this.now = new AtomicReference<>(Objects.requireNonNull(start, "start"));
  }

  /**
   * Moves the clock forward (or back, with a negative duration).
   *
   * @param by how far to move it
   * @return the instant it reads afterwards
   * @throws NullPointerException if {@code by} is null
   * @throws java.time.DateTimeException if the result is out of {@link Instant}'s range
   */
  public Instant advance(Duration by) {
    Objects.requireNonNull(by, "by");
    return now.updateAndGet(t -> t.plus(by));
  }

  /**
   * Sets the clock.
   *
   * @param instant the instant it reads from now on
   * @throws NullPointerException if {@code instant} is null
   */
  public void set(Instant instant) {
    now.set(Objects.requireNonNull(instant, "instant"));
  }

  /**
   * UTC, always.
   *
   * @return {@link ZoneOffset#UTC}
   */
  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  /**
   * This clock: it has no zone to change, and a copy would not follow {@link #set}.
   *
   * @param zone ignored
   * @return this clock
   */
  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  /**
   * The instant the clock was last set or advanced to.
   *
   * @return the current instant
   */
  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public String toString() {
    return "MutableClock[" + now.get() + "]";
  }
}
