package dev.ledger.core;

import com.google.common.base.Preconditions;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Which part of a ledger's history a retention keeps: the last {@code N} revisions, the
 * commits of the last {@link Duration} (by their commit time, against the store's clock), or
 * both. With both, a commit is kept if <em>either</em> rule keeps it: retention removes only
 * what every rule it names lets go. The latest commit and the current state are always kept,
 * whatever the rules say; so is everything after the first commit a rule keeps (history is
 * cut at one point, never thinned).
 *
 * <p>A store removes history in whole units (the file store in journal segments): it may keep
 * more than the policy allows, never less. Applied explicitly, by the stores'
 * {@code applyRetention} ({@link dev.ledger.core.fs.FileLedgerStore#applyRetention},
 * {@link dev.ledger.core.memory.InMemoryLedgerStore#applyRetention}).
 *
 * @param keepRevisions keep the last this many revisions (at least 1), if present
 * @param keepHistory keep the commits made within this duration before now (zero or positive),
 *     if present
 */
public record RetentionPolicy(OptionalLong keepRevisions, Optional<Duration> keepHistory) {
  /**
   * Checks the rules.
   *
   * @param keepRevisions the revision rule, if any
   * @param keepHistory the duration rule, if any
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if neither rule is present, the revision count is below
   *     1, or the duration is negative
   */
  public RetentionPolicy {
    Preconditions.checkNotNull(keepRevisions, "keepRevisions");
    Preconditions.checkNotNull(keepHistory, "keepHistory");
    Preconditions.checkArgument(keepRevisions.isPresent() || keepHistory.isPresent(),
        "a retention policy needs a revision count, a duration or both");
    Preconditions.checkArgument(keepRevisions.isEmpty() || keepRevisions.getAsLong() >= 1,
        "keepRevisions must be at least 1: %s", keepRevisions);
    Preconditions.checkArgument(keepHistory.isEmpty() || !keepHistory.get().isNegative(),
        "keepHistory must be zero or positive: %s", keepHistory);
  }

  /**
   * Keeps the last {@code revisions} revisions.
   *
   * @param revisions how many of the latest revisions to keep, at least 1
   * @return the policy
   * @throws IllegalArgumentException if {@code revisions} is below 1
   */
  public static RetentionPolicy keepRevisions(long revisions) {
    return new RetentionPolicy(OptionalLong.of(revisions), Optional.empty());
  }

  /**
   * Keeps the commits made within {@code duration} before the store's clock's now.
   *
   * @param duration how much recent history to keep, zero or positive
   * @return the policy
   * @throws NullPointerException if {@code duration} is null
   * @throws IllegalArgumentException if {@code duration} is negative
   */
  public static RetentionPolicy keepHistory(Duration duration) {
    Preconditions.checkNotNull(duration, "duration");
    return new RetentionPolicy(OptionalLong.empty(), Optional.of(duration));
  }

  /**
   * This policy with a duration rule too: a commit is kept if either rule keeps it.
   *
   * @param duration how much recent history to keep as well, zero or positive
   * @return the new policy
   * @throws NullPointerException if {@code duration} is null
   * @throws IllegalArgumentException if {@code duration} is negative
   */
  public RetentionPolicy orHistory(Duration duration) {
    Preconditions.checkNotNull(duration, "duration");
    return new RetentionPolicy(keepRevisions, Optional.of(duration));
  }

  /**
   * This policy with a revision rule too: a commit is kept if either rule keeps it.
   *
   * @param revisions how many of the latest revisions to keep as well, at least 1
   * @return the new policy
   * @throws IllegalArgumentException if {@code revisions} is below 1
   */
  public RetentionPolicy orRevisions(long revisions) {
    return new RetentionPolicy(OptionalLong.of(revisions), keepHistory);
  }

  /**
   * The first revision the revision rule keeps in a ledger at {@code head}, or
   * {@code Long.MAX_VALUE} if there is no revision rule.
   *
   * @param head the ledger's latest revision
   * @return the first revision kept by the count
   */
  public long firstKeptByCount(long head) {
    return keepRevisions.isPresent() ? Math.max(1, head - keepRevisions.getAsLong() + 1)
        : Long.MAX_VALUE;
  }

  /**
   * Whether the duration rule keeps a commit made at {@code committedAt}; false if there is no
   * duration rule.
   *
   * @param committedAt the commit's time
   * @param now the store clock's current time
   * @return true if the commit is within the kept duration
   * @throws NullPointerException if an argument is null
   */
  public boolean keepsByTime(Instant committedAt, Instant now) {
    Preconditions.checkNotNull(committedAt, "committedAt");
    Preconditions.checkNotNull(now, "now");
    return keepHistory.isPresent() && !committedAt.isBefore(now.minus(keepHistory.get()));
  }
}
