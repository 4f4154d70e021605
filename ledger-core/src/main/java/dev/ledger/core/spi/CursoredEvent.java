package dev.ledger.core.spi;

import com.google.common.base.Preconditions;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;

/**
 * An event with the cursor that resumes reading just after it: what a follower needs to say
 * where it is after every event, not only at the end of a page.
 *
 * @param event the event
 * @param after the cursor after {@code event}: reading after it starts with the next event
 */
public record CursoredEvent(Event event, Cursor after) {
  /**
   * Checks both fields.
   *
   * @param event the event
   * @param after the cursor after it
   * @throws NullPointerException if either is null
   */
  public CursoredEvent {
    Preconditions.checkNotNull(event, "event");
    Preconditions.checkNotNull(after, "after");
  }
}
