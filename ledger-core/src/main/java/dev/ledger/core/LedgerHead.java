package dev.ledger.core;

import com.google.common.base.Preconditions;
import java.time.Instant;

/**
 * Where a ledger stands, read without loading its state: {@link LedgerStore#head}.
 *
 * @param rootId the ledger's root id
 * @param revision the revision of its latest acknowledged commit, at least 1
 * @param events the number of events committed so far, over all revisions (the sequence of
 *     the last event; 0 if every commit carried no event)
 * @param lastCommitAt when the latest commit was made, by the committing store's clock
 */
public record LedgerHead(String rootId, long revision, long events, Instant lastCommitAt) {
  /**
   * Checks the values.
   *
   * @param rootId the ledger's root id
   * @param revision the latest revision, at least 1
   * @param events the number of events committed, at least 0
   * @param lastCommitAt the latest commit's time
   * @throws NullPointerException if {@code rootId} or {@code lastCommitAt} is null
   * @throws IllegalArgumentException if {@code revision} is below 1 or {@code events} below 0
   */
  public LedgerHead {
    Preconditions.checkNotNull(rootId, "rootId");
    Preconditions.checkNotNull(lastCommitAt, "lastCommitAt");
    Preconditions.checkArgument(revision >= 1, "revision must be at least 1: %s", revision);
    Preconditions.checkArgument(events >= 0, "events must be at least 0: %s", events);
  }
}
