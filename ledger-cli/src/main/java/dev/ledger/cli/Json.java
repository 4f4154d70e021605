package dev.ledger.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.Event;

/** The JSON the commands print. */
final class Json {
  /** Compact writer for JSON Lines. */
  static final ObjectMapper MAPPER = new ObjectMapper();
  /** Indenting writer for documents a person reads. */
  static final ObjectMapper PRETTY = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private Json() {}

  /**
   * An event as one JSON object: sequence, revision, type, occurredAt, payload, then
   * commandId and operationId when set, and the event id.
   *
   * @param event the event
   * @return the object
   */
  static ObjectNode event(Event event) {
    ObjectNode node = MAPPER.createObjectNode();
    node.put("sequence", event.sequence());
    node.put("revision", event.revision());
    node.put("type", event.type());
    node.put("occurredAt", event.occurredAt().toString());
    node.set("payload", event.payload());
    if (event.commandId() != null) {
      node.put("commandId", event.commandId());
    }
    if (event.operationId() != null) {
      node.put("operationId", event.operationId());
    }
    node.put("id", event.id());
    return node;
  }

  /**
   * One line of compact JSON.
   *
   * @param node the value
   * @return its JSON text
   */
  static String line(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree did not write: " + e.getMessage(), e);
    }
  }

  /**
   * Indented JSON.
   *
   * @param node the value
   * @return its JSON text, on several lines
   */
  static String pretty(JsonNode node) {
    try {
      return PRETTY.writeValueAsString(node);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree did not write: " + e.getMessage(), e);
    }
  }
}
