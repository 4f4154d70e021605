package dev.ledger.core.spi;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.common.base.Preconditions;
import dev.ledger.core.Event;
import java.time.Instant;
import java.util.List;

/**
 * One commit as {@link PatchLog#commitsAfter} reads it back: either the whole new state (a
 * commit made through {@link dev.ledger.core.Ledger} whose state was smaller than its patch,
 * or the first commit of a ledger, which a journal records whole even when it came through
 * {@link PatchLog#commitPatch}) or a merge patch against the previous revision's state.
 *
 * @param revision the revision the commit produced
 * @param committedAt its commit time
 * @param stateVersion the state version recorded with it
 * @param state the whole new state, or null when {@code patch} is set; shared, do not mutate
 * @param patch the merge patch from {@code revision - 1}, or null when {@code state} is set;
 *     shared, do not mutate
 * @param events its events, in sequence order
 * @param commandId its public command id, or null
 */
public record LoggedCommit(
    long revision,
    Instant committedAt,
    int stateVersion,
    JsonNode state,
    JsonNode patch,
    List<Event> events,
    String commandId) {

  /**
   * Checks that exactly one of state and patch is set, and copies the events.
   *
   * @param revision the revision, at least 1
   * @param committedAt the commit time
   * @param stateVersion the state version
   * @param state the whole state, or null
   * @param patch the patch, or null
   * @param events the events
   * @param commandId the command id, or null
   * @throws IllegalArgumentException if the revision is not positive, or not exactly one of
   *     state and patch is set
   * @throws NullPointerException if the time or the events are null
   */
  public LoggedCommit {
    Preconditions.checkArgument(revision >= 1, "revision must be >= 1: %s", revision);
    Preconditions.checkNotNull(committedAt, "committedAt");
    Preconditions.checkArgument((state == null) != (patch == null),
        "exactly one of state and patch, revision %s", revision);
    events = List.copyOf(events);
  }
}
