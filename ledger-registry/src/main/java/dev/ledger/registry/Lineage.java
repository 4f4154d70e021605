package dev.ledger.registry;

import com.google.common.base.Preconditions;
import java.time.Instant;
import java.util.List;

/**
 * Attempts of one workflow that share a first run, as {@link RunRegistry#listRecentLineages}
 * returns them.
 *
 * @param firstRunId the external id of the lineage's first run
 * @param lastUpdatedAt the newest {@code updatedAt} among all its attempts
 * @param attempts its newest attempts, in ascending attempt order; unmodifiable
 */
public record Lineage(String firstRunId, Instant lastUpdatedAt, List<RunRecord> attempts) {
  /**
   * Checks and copies.
   *
   * @param firstRunId the first run id
   * @param lastUpdatedAt the newest update
   * @param attempts the attempts
   * @throws NullPointerException if a field or attempt is null
   */
  public Lineage {
    Preconditions.checkNotNull(firstRunId, "firstRunId");
    Preconditions.checkNotNull(lastUpdatedAt, "lastUpdatedAt");
    attempts = List.copyOf(attempts);
  }
}
