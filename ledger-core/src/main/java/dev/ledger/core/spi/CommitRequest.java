package dev.ledger.core.spi;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.common.base.Preconditions;
import dev.ledger.core.EventDraft;
import dev.ledger.core.internal.json.LedgerJson;
import java.util.List;

/**
 * A validated commit handed to a {@link LedgerBackend}: the new state as a tree parsed back
 * from its canonical bytes (so every backend compares like with like), its state version, the
 * drafts, and the command the commit performs.
 *
 * <p><b>Commands.</b> A backend that finds {@code publicCommandId} already recorded must not
 * write: it returns the recorded result if the recorded digest equals {@code commandDigest},
 * and throws {@link dev.ledger.core.CommandConflictException} otherwise. The digest covers the
 * caller's intent, the drafts (type, canonical payload, operation id, in order), and not the
 * new state or the expected revision: a command retried on a state re-derived after another
 * writer's commit is the same command.
 *
 * @param expectedRevision the revision the caller read
 * @param state the new state, normalized by a canonical write and re-read
 * @param stateBytes size of the state's canonical JSON
 * @param stateVersion the state version the state was written with (see
 *     {@link dev.ledger.core.StateType}); recorded with the commit
 * @param events the event drafts, validated against the size limits
 * @param publicCommandId {@code cmd_} + SHA-256 hex of the caller's command id, or null
 * @param commandDigest SHA-256 hex of the canonical JSON of the drafts,
 *     {@code {"events":[{"operationId":…,"payload":…,"type":…},…]}}, or null without a
 *     command id
 * @param stateBytesExact whether {@code stateBytes} is exactly the length of the canonical
 *     JSON of {@code state} as given here (a backend may then use it for that length instead
 *     of counting); false when it may be the size of the caller's tree before the re-read,
 *     whose canonical bytes can differ (a decimal {@code 100.000} reads back as {@code 100.0})
 */
public record CommitRequest(
    long expectedRevision,
    JsonNode state,
    int stateBytes,
    int stateVersion,
    List<EventDraft> events,
    String publicCommandId,
    String commandDigest,
    boolean stateBytesExact) {

  /**
   * Copies the draft list and checks the command fields come together.
   *
   * @param expectedRevision the revision the caller read
   * @param state the normalized new state
   * @param stateBytes size of the state's canonical JSON
   * @param stateVersion the state version of the state
   * @param events the event drafts
   * @param publicCommandId the public command id, or null
   * @param commandDigest the intent digest, or null
   * @param stateBytesExact whether {@code stateBytes} is the size of {@code state}'s
   *     canonical JSON
   * @throws IllegalArgumentException if a revision or version is negative, or only one of
   *     the command fields is set
   * @throws NullPointerException if the state or the event list is null
   */
  public CommitRequest {
    Preconditions.checkArgument(expectedRevision >= 0, "expectedRevision must be >= 0: %s",
        expectedRevision);
    Preconditions.checkNotNull(state, "state");
    Preconditions.checkArgument(stateVersion >= 0, "stateVersion must be >= 0: %s",
        stateVersion);
    events = List.copyOf(events);
    Preconditions.checkArgument((publicCommandId == null) == (commandDigest == null),
        "command id and digest come together");
  }

  /**
   * A request whose {@code stateBytes} is not known to be the exact size of {@code state}'s
   * canonical JSON ({@code stateBytesExact} false); otherwise as the canonical constructor.
   *
   * @param expectedRevision the revision the caller read
   * @param state the normalized new state
   * @param stateBytes size of the state's canonical JSON
   * @param stateVersion the state version of the state
   * @param events the event drafts
   * @param publicCommandId the public command id, or null
   * @param commandDigest the intent digest, or null
   * @throws IllegalArgumentException if a revision or version is negative, or only one of
   *     the command fields is set
   * @throws NullPointerException if the state or the event list is null
   */
  public CommitRequest(long expectedRevision, JsonNode state, int stateBytes, int stateVersion,
      List<EventDraft> events, String publicCommandId, String commandDigest) {
    this(expectedRevision, state, stateBytes, stateVersion, events, publicCommandId,
        commandDigest, false);
  }

  /**
   * The public form of a caller's command id, as journals and errors show it: {@code cmd_} +
   * SHA-256 hex of its UTF-8 bytes.
   *
   * @param rawCommandId the id the caller gave
   * @return the public id
   */
  public static String publicCommandId(String rawCommandId) {
    return "cmd_" + LedgerJson.sha256Hex(rawCommandId);
  }
}
