package dev.ledger.core;

import com.google.common.base.Preconditions;
import java.time.Instant;
import java.util.List;

/**
 * What a commit recorded.
 *
 * @param rootId the ledger's root id
 * @param revision the revision this commit produced
 * @param committedAt the commit time, by the store's clock
 * @param events the events recorded, in sequence order
 * @param cursor a cursor after this commit's last event (reading after it returns only later
 *     commits' events)
 * @param replayed true when the command id was already recorded and this is the original
 *     result, returned without writing anything
 */
public record CommitResult(
    String rootId,
    long revision,
    Instant committedAt,
    List<Event> events,
    Cursor cursor,
    boolean replayed) {

  /**
   * Copies the event list.
   *
   * @param rootId the ledger's root id
   * @param revision the revision this commit produced, at least 1
   * @param committedAt the commit time, by the store's clock
   * @param events the events recorded, in sequence order; copied
   * @param cursor a cursor after this commit's last event
   * @param replayed true when this is the recorded result of an earlier commit of the command
   * @throws NullPointerException if {@code rootId}, {@code committedAt}, {@code events}, an
   *     event or {@code cursor} is null
   * @throws IllegalArgumentException if {@code revision} is not positive
   */
  public CommitResult {
    Preconditions.checkNotNull(rootId, "rootId");
    Preconditions.checkArgument(revision > 0, "revision must be positive: %s", revision);
    Preconditions.checkNotNull(committedAt, "committedAt");
    events = List.copyOf(events);
    Preconditions.checkNotNull(cursor, "cursor");
  }
}
