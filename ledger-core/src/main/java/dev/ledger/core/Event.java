package dev.ledger.core;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.google.common.base.Preconditions;
import dev.ledger.core.internal.json.LedgerJson;
import java.time.Instant;

/**
 * One recorded event of a ledger's journal. Events are immutable history: the journal holds
 * sequences 1, 2, 3, ... without gap or repeat, each stamped with the revision of the commit
 * that recorded it.
 *
 * @param id deterministic id: SHA-256 hex of {@code rootId + ":" + sequence}
 * @param rootId the ledger's root id
 * @param sequence position in the journal, from 1
 * @param revision the ledger revision committed together with this event
 * @param type the caller's event type
 * @param occurredAt the commit time, by the store's clock
 * @param payload the caller's JSON payload (a private copy: mutating it changes nothing)
 * @param commandId the public command id ({@code cmd_} + SHA-256 hex of the caller's id),
 *     or null; the caller's raw id is never stored
 * @param operationId the caller's operation id, or null
 */
public record Event(
    String id,
    String rootId,
    long sequence,
    long revision,
    String type,
    Instant occurredAt,
    JsonNode payload,
    String commandId,
    String operationId) {

  /**
   * Checks required fields.
   *
   * @param id deterministic id: SHA-256 hex of {@code rootId + ":" + sequence}
   * @param rootId the ledger's root id
   * @param sequence position in the journal, from 1
   * @param revision the ledger revision committed together with this event, from 1
   * @param type the caller's event type
   * @param occurredAt the commit time, by the store's clock
   * @param payload the caller's JSON payload
   * @param commandId the public command id, or null
   * @param operationId the caller's operation id, or null
   * @throws NullPointerException if {@code id}, {@code rootId}, {@code type},
   *     {@code occurredAt} or {@code payload} is null
   * @throws IllegalArgumentException if {@code sequence} or {@code revision} is not positive
   */
  public Event {
    Preconditions.checkNotNull(id, "id");
    Preconditions.checkNotNull(rootId, "rootId");
    Preconditions.checkArgument(sequence > 0, "sequence must be positive: %s", sequence);
    Preconditions.checkArgument(revision > 0, "revision must be positive: %s", revision);
    Preconditions.checkNotNull(type, "type");
    Preconditions.checkNotNull(occurredAt, "occurredAt");
    Preconditions.checkNotNull(payload, "payload");
  }

  /**
   * The payload mapped to {@code type} with the library's mapper settings (those of
   * {@link EventDraft#of}; unknown properties are ignored, missing ones get Java defaults).
   *
   * @param type a Jackson-mapped class, a record, or {@code JsonNode} (a copy)
   * @param <T> the payload type
   * @return a new value on each call
   * @throws PayloadMappingException if the payload does not fit the type; it names the ledger,
   *     the event and the field
   * @throws NullPointerException if {@code type} is null
   */
  public <T> T payloadAs(Class<T> type) {
    Preconditions.checkNotNull(type, "type");
    return payloadAs(LedgerJson.values().constructType(type));
  }

  /**
   * The payload mapped to a generic type, such as {@code new TypeReference<Map<String,
   * Integer>>() {}}; otherwise as {@link #payloadAs(Class)}.
   *
   * @param type the type reference
   * @param <T> the payload type
   * @return a new value on each call
   * @throws PayloadMappingException if the payload does not fit the type
   * @throws NullPointerException if {@code type} is null
   */
  public <T> T payloadAs(TypeReference<T> type) {
    Preconditions.checkNotNull(type, "type");
    return payloadAs(LedgerJson.values().constructType(type));
  }

  private <T> T payloadAs(JavaType type) {
    try {
      return LedgerJson.convert(LedgerJson.values(), payload, type);
    } catch (JsonProcessingException e) {
      throw new PayloadMappingException(this, type.toCanonical(), LedgerJson.pointer(e),
          e.getOriginalMessage(), e);
    }
  }
}
