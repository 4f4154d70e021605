package dev.ledger.testing.base;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/** A UTC clock that tests move by hand. Thread-safe. */
public final class MutableClock extends Clock {
  private final AtomicReference<Instant> now;

  /** A clock reading {@code start} until moved. */
  public MutableClock(Instant start) {
    this.now = new AtomicReference<>(start);
  }

  /** Moves the clock forward (or back, with a negative duration). */
  public void advance(Duration by) {
    now.updateAndGet(t -> t.plus(by));
  }

  /** Sets the clock. */
  public void set(Instant instant) {
    now.set(instant);
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return now.get();
  }
}
