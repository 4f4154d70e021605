package dev.ledger.core.lifecycle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.base.Preconditions;
import dev.ledger.core.EventDraft;

/**
 * The payload of a {@value #TYPE} event, recorded for every transition that is not a no-op:
 * <pre>
 * {"from": "running", "to": "failed", "revision": 7, "details": {...}}
 * </pre>
 *
 * @param from the name of the state left
 * @param to the name of the state entered
 * @param revision the revision of the thing that moved once the transition is written (a
 *     ledger's new revision, a run's new revision)
 * @param details the caller's details, a JSON object (copied); empty when none were given
 */
public record StatusChanged(String from, String to, long revision, JsonNode details) {
  /** The event type of a transition. */
  public static final String TYPE = "status_changed";

  /**
   * Checks and copies.
   *
   * @param from the state left
   * @param to the state entered
   * @param revision the revision after the transition, at least 1
   * @param details a JSON object, or null for none
   * @throws NullPointerException if {@code from} or {@code to} is null
   * @throws IllegalArgumentException if the revision is below 1, the states are equal or the
   *     details are not an object
   */
  public StatusChanged {
    Preconditions.checkNotNull(from, "from");
    Preconditions.checkNotNull(to, "to");
    Preconditions.checkArgument(revision >= 1, "revision must be at least 1: %s", revision);
    Preconditions.checkArgument(!from.equals(to), "a no-op %s -> %s records no event", from, to);
    details = details == null || details.isNull() ? JsonNodeFactory.instance.objectNode()
        : details.deepCopy();
    Preconditions.checkArgument(details.isObject(), "details must be a JSON object: %s",
        details);
  }

  /**
   * This change as a ledger event draft of type {@value #TYPE}.
   *
   * @return the draft
   */
  public EventDraft toEvent() {
    ObjectNode payload = JsonNodeFactory.instance.objectNode();
    payload.put("from", from);
    payload.put("to", to);
    payload.put("revision", revision);
    payload.set("details", details);
    return EventDraft.of(TYPE, payload);
  }

  /**
   * Reads a payload written by {@link #toEvent()}.
   *
   * @param payload the event's payload
   * @return the change
   * @throws IllegalArgumentException if a field is missing or of the wrong type
   * @throws NullPointerException if {@code payload} is null
   */
  public static StatusChanged fromPayload(JsonNode payload) {
    Preconditions.checkNotNull(payload, "payload");
    JsonNode from = payload.get("from");
    JsonNode to = payload.get("to");
    JsonNode revision = payload.get("revision");
    Preconditions.checkArgument(from != null && from.isTextual() && to != null
        && to.isTextual() && revision != null && revision.canConvertToLong(),
        "not a %s payload: %s", TYPE, payload);
    return new StatusChanged(from.textValue(), to.textValue(), revision.longValue(),
        payload.get("details"));
  }
}
