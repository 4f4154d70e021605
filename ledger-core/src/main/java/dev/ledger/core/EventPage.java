package dev.ledger.core;

import com.google.common.base.Preconditions;
import java.util.List;

/**
 * One page of events read after a cursor.
 *
 * @param events the events, in sequence order; empty when nothing was committed after the cursor
 * @param nextCursor the cursor after the last event of this page; the cursor that was read
 *     when the page is empty
 * @param hasMore whether more committed events followed this page when it was read
 */
public record EventPage(List<Event> events, Cursor nextCursor, boolean hasMore) {
  /**
   * Copies the event list.
   *
   * @param events the events, in sequence order; copied
   * @param nextCursor the cursor after the last event of this page, or the cursor that was
   *     read when the page is empty
   * @param hasMore whether more committed events followed this page when it was read
   * @throws NullPointerException if {@code events}, an event or {@code nextCursor} is null
   */
  public EventPage {
    events = List.copyOf(events);
    Preconditions.checkNotNull(nextCursor, "nextCursor");
  }
}
