package dev.ledger.core.internal.journal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;

/**
 * Builds an event payload's tree straight from the parser of the record it is in, for the
 * value kinds payloads hold (objects, arrays, strings, integers that fit a long, booleans,
 * null), with the nodes the mapper's tree reader builds for them: the same node factory, a
 * {@code TextNode} per string, an {@code IntNode} or {@code LongNode} as the parser types the
 * integer. The mapper's reader costs a deserialization context per call, and a record of 100
 * events made 100 of them.
 *
 * <p>Anything else is left to the mapper's reader: a float or decimal (whose node depends on
 * the reader's number settings), an integer beyond a long, an embedded value, and a key that
 * repeats in an object (the reader refuses it with its own message). The builder then throws
 * {@link Unsupported} and the caller reads the record again with the mapper's reader for its
 * payloads. Nesting is bounded by the parser ({@link LedgerJson#MAX_NESTING_DEPTH}), which
 * bounds the recursion. Stateless; thread-safe.
 */
final class PayloadTrees {
  private static final JsonNodeFactory NODES = LedgerJson.mapper().getNodeFactory();

  private PayloadTrees() {}

  /**
   * The tree of the value whose first token the parser is at; the parser is left at its last
   * token.
   *
   * @throws Unsupported if the value holds a kind the mapper's reader must build, or a key
   *     repeats
   * @throws IOException if the parser fails
   */
  static JsonNode read(JsonParser in) throws IOException {
    return value(in, in.currentToken());
  }

  private static JsonNode value(JsonParser in, JsonToken token) throws IOException {
    if (token == null) {
      throw new Unsupported();
    }
    return switch (token) {
      case START_OBJECT -> object(in);
      case START_ARRAY -> array(in);
      case VALUE_STRING -> NODES.textNode(in.getText());
      case VALUE_NUMBER_INT -> integer(in);
      case VALUE_TRUE -> NODES.booleanNode(true);
      case VALUE_FALSE -> NODES.booleanNode(false);
      case VALUE_NULL -> NODES.nullNode();
      default -> throw new Unsupported();
    };
  }

  private static ObjectNode object(JsonParser in) throws IOException {
    ObjectNode node = NODES.objectNode();
    for (String name = in.nextFieldName(); name != null; name = in.nextFieldName()) {
      if (node.replace(name, value(in, in.nextToken())) != null) {
        throw new Unsupported();
      }
    }
    return node;
  }

  private static ArrayNode array(JsonParser in) throws IOException {
    ArrayNode node = NODES.arrayNode();
    JsonToken token;
    while ((token = in.nextToken()) != JsonToken.END_ARRAY) {
      node.add(value(in, token));
    }
    return node;
  }

  private static JsonNode integer(JsonParser in) throws IOException {
    return switch (in.getNumberType()) {
      case INT -> NODES.numberNode(in.getIntValue());
      case LONG -> NODES.numberNode(in.getLongValue());
      default -> throw new Unsupported();
    };
  }

  /** The payload holds what only the mapper's reader builds (or refuses); no stack trace. */
  static final class Unsupported extends IOException {
    private static final long serialVersionUID = 1L;

    Unsupported() {
      super("payload left to the tree reader");
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this;
    }
  }
}
