package dev.ledger.core.lifecycle;

import com.google.common.base.Preconditions;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A transition a {@link Lifecycle} allowed: where it goes and the timestamps to set on
 * entering {@link #to()}. A no-op (to the current state) sets nothing and should write
 * nothing.
 *
 * @param from the current state
 * @param to the requested state
 * @param stamps the timestamp fields to set, by field name, in declaration order; empty for a
 *     no-op; unmodifiable
 * @param <S> the state type
 */
public record Transition<S>(S from, S to, Map<String, Instant> stamps) {
  /**
   * Copies the stamps.
   *
   * @param from the current state
   * @param to the requested state
   * @param stamps the fields to stamp
   * @throws NullPointerException if an argument, a field name or an instant is null
   * @throws IllegalArgumentException if a no-op carries stamps
   */
  public Transition {
    Preconditions.checkNotNull(from, "from");
    Preconditions.checkNotNull(to, "to");
    Map<String, Instant> copy = new LinkedHashMap<>();
    stamps.forEach((field, at) -> copy.put(Preconditions.checkNotNull(field, "field"),
        Preconditions.checkNotNull(at, "stamp of %s", field)));
    stamps = Collections.unmodifiableMap(copy);
    Preconditions.checkArgument(!from.equals(to) || stamps.isEmpty(),
        "a no-op transition %s -> %s stamps nothing: %s", from, to, stamps);
  }

  /**
   * Whether this transition goes to the state it starts from: write nothing, record no event.
   *
   * @return true for a no-op
   */
  public boolean isNoOp() {
    return from.equals(to);
  }
}
