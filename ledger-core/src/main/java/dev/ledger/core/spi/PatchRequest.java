package dev.ledger.core.spi;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.common.base.Preconditions;
import dev.ledger.core.EventDraft;
import java.util.List;

/**
 * One commit through a {@link PatchLog}: a JSON merge patch (RFC 7386) against the state of
 * {@code expectedRevision}, the events recorded with it, and its command.
 *
 * <p>The patch must be an object (a merge patch that is not an object would replace the whole
 * state, which is what a {@link dev.ledger.core.Ledger} commit is for). As in any merge patch,
 * a {@code null} member removes a field; a patch cannot store an explicit {@code null}.
 *
 * @param expectedRevision the revision the patch applies to
 * @param patch the merge patch, an object; not copied, must not be mutated afterwards
 * @param stateVersion the state version recorded with the commit
 * @param events the event drafts, in order (may be empty)
 * @param publicCommandId {@code cmd_} + SHA-256 hex of the caller's command id, or null
 * @param commandDigest the intent digest the command is compared by (see
 *     {@link CommitRequest}), or null without a command id
 */
public record PatchRequest(
    long expectedRevision,
    JsonNode patch,
    int stateVersion,
    List<EventDraft> events,
    String publicCommandId,
    String commandDigest) {

  /**
   * Copies the draft list and checks the fields.
   *
   * @param expectedRevision the revision the patch applies to
   * @param patch the merge patch
   * @param stateVersion the state version
   * @param events the drafts
   * @param publicCommandId the public command id, or null
   * @param commandDigest the intent digest, or null
   * @throws IllegalArgumentException if the revision or version is negative, the patch is not
   *     an object, or only one of the command fields is set
   * @throws NullPointerException if the patch or the event list is null
   */
  public PatchRequest {
    Preconditions.checkArgument(expectedRevision >= 0, "expectedRevision must be >= 0: %s",
        expectedRevision);
    Preconditions.checkNotNull(patch, "patch");
    Preconditions.checkArgument(patch.isObject(), "a patch must be a JSON object, was %s",
        patch.getNodeType());
    Preconditions.checkArgument(stateVersion >= 0, "stateVersion must be >= 0: %s",
        stateVersion);
    events = List.copyOf(events);
    Preconditions.checkArgument((publicCommandId == null) == (commandDigest == null),
        "command id and digest come together");
  }
}
