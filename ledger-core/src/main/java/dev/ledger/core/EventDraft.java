package dev.ledger.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.common.base.Preconditions;
import dev.ledger.core.internal.json.LedgerJson;

/**
 * An event to record with a commit. The store assigns its sequence, id, revision and time.
 *
 * <p>A draft may carry a <em>command id</em>: the caller's id for the command this commit
 * performs. All drafts of one commit that carry a command id must carry the same one. A
 * commit whose command id the ledger already recorded writes nothing and returns the
 * original result (or throws {@link CommandConflictException} if its content differs).
 *
 * @param type the event type, 1 to 200 characters
 * @param payload the JSON payload (copied on construction; at most
 *     {@link LedgerJson#MAX_NESTING_DEPTH} deep, else {@code IllegalArgumentException})
 * @param commandId the caller's command id, or null
 * @param operationId the caller's operation id (a background operation it concerns), or null
 */
public record EventDraft(String type, JsonNode payload, String commandId, String operationId) {
  /** Maximum length of an event type, command id or operation id. */
  public static final int MAX_NAME_LENGTH = 200;

  /**
   * Validates the fields and takes a private copy of the payload.
   *
   * @param type the event type, 1 to {@value #MAX_NAME_LENGTH} characters
   * @param payload the JSON payload; copied, at most {@link LedgerJson#MAX_NESTING_DEPTH} deep
   * @param commandId the caller's command id, 1 to {@value #MAX_NAME_LENGTH} characters, or
   *     null
   * @param operationId the caller's operation id, 1 to {@value #MAX_NAME_LENGTH} characters,
   *     or null
   * @throws NullPointerException if {@code type} or {@code payload} is null
   * @throws IllegalArgumentException if a name is empty or longer than
   *     {@value #MAX_NAME_LENGTH} characters, or the payload is nested too deep
   */
  public EventDraft {
    checkName("event type", type, false);
    Preconditions.checkNotNull(payload, "payload");
    payload = LedgerJson.checkDepth(payload).deepCopy();
    checkName("command id", commandId, true);
    checkName("operation id", operationId, true);
  }

  /**
   * A draft with a payload mapped from any Jackson-serializable value.
   *
   * @param type the event type, 1 to {@value #MAX_NAME_LENGTH} characters
   * @param payload the payload: a {@code JsonNode} (copied) or any value Jackson maps
   * @return the draft, without command or operation id
   * @throws NullPointerException if {@code type} or {@code payload} is null
   * @throws IllegalArgumentException if {@code type} is empty or too long, or the payload
   *     cannot be mapped to JSON or is nested too deep
   */
  public static EventDraft of(String type, Object payload) {
    Preconditions.checkNotNull(type, "event type");
    Preconditions.checkNotNull(payload, "payload of event %s", type);
    return new EventDraft(type, LedgerJson.tree(payload), null, null);
  }

  /**
   * This draft, carrying the caller's command id.
   *
   * @param id the command id, 1 to {@value #MAX_NAME_LENGTH} characters; null for none
   * @return the new draft
   * @throws IllegalArgumentException if {@code id} is empty or too long
   */
  public EventDraft withCommandId(String id) {
    return new EventDraft(type, payload, id, operationId);
  }

  /**
   * This draft, concerning the given operation.
   *
   * @param id the operation id, 1 to {@value #MAX_NAME_LENGTH} characters; null for none
   * @return the new draft
   * @throws IllegalArgumentException if {@code id} is empty or too long
   */
  public EventDraft withOperationId(String id) {
    return new EventDraft(type, payload, commandId, id);
  }

  private static void checkName(String what, String value, boolean nullable) {
    if (value == null) {
      if (!nullable) {
        throw new NullPointerException(what + " must not be null");
      }
      return;
    }
    Preconditions.checkArgument(!value.isEmpty() && value.length() <= MAX_NAME_LENGTH,
        "%s must have 1 to %s characters, got %s", what, MAX_NAME_LENGTH, value.length());
  }
}
