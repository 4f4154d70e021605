package dev.ledger.core;

import com.google.common.base.Preconditions;
import java.time.Instant;

/**
 * A ledger's state as of one committed revision.
 *
 * @param state the state, mapped to the ledger's state type
 * @param revision the revision that produced it; the first commit is revision 1
 * @param updatedAt when that revision was committed, by the store's clock
 * @param <S> the state type
 */
public record Versioned<S>(S state, long revision, Instant updatedAt) {
  /**
   * Checks that the revision is positive and the fields are present.
   *
   * @param state the state, mapped to the ledger's state type
   * @param revision the revision that produced it, at least 1
   * @param updatedAt when that revision was committed, by the store's clock
   * @throws NullPointerException if {@code state} or {@code updatedAt} is null
   * @throws IllegalArgumentException if {@code revision} is not positive
   */
  public Versioned {
    Preconditions.checkNotNull(state, "state");
    Preconditions.checkArgument(revision > 0, "revision must be positive: %s", revision);
    Preconditions.checkNotNull(updatedAt, "updatedAt");
  }
}
