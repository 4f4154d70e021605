package dev.ledger.core.internal.json;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * Typed reads of required fields from the JSON of the library's own file formats. Each
 * throws {@link IllegalArgumentException} naming the field; callers turn that into the
 * corruption error of the file they read.
 */
public final class JsonFields {
  private JsonFields() {}

  /** The field as a long; it must be an integral number that fits. */
  public static long integer(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null || !value.isIntegralNumber() || !value.canConvertToLong()) {
      throw new IllegalArgumentException("field '" + field + "' must be an integer");
    }
    return value.longValue();
  }

  /** The field as a string; it must be a JSON string. */
  public static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null || !value.isTextual()) {
      throw new IllegalArgumentException("field '" + field + "' must be a string");
    }
    return value.textValue();
  }

  /** The field as a string, or null when absent; present, it must be a JSON string. */
  public static String optionalText(JsonNode node, String field) {
    return node.get(field) == null ? null : text(node, field);
  }

  /** The field as an instant; it must be an ISO-8601 string. */
  public static Instant instant(JsonNode node, String field) {
    try {
      return Instant.parse(text(node, field));
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("field '" + field + "' is not an ISO-8601 instant", e);
    }
  }
}
