package dev.ledger.core.memory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;

/**
 * Applies JSON merge patches (RFC 7386) in place, to a tree the caller owns: folding many
 * patches then costs the patches, not a copy of the state per patch.
 */
final class PatchFold {
  private PatchFold() {}

  /**
   * Applies {@code patch} to {@code target}, mutating {@code target} when it is an object.
   *
   * @param target the caller's own tree, or null for no state
   * @param patch the merge patch; its subtrees may end up shared with the result
   * @return the patched tree ({@code target} itself when both are objects)
   */
  static JsonNode apply(JsonNode target, JsonNode patch) {
    if (!patch.isObject()) {
      return patch;
    }
    ObjectNode result = target != null && target.isObject() ? (ObjectNode) target
        : JsonNodeFactory.instance.objectNode();
    for (Map.Entry<String, JsonNode> field : patch.properties()) {
      JsonNode value = field.getValue();
      if (value.isNull()) {
        result.remove(field.getKey());
      } else {
        result.set(field.getKey(), apply(result.get(field.getKey()), value));
      }
    }
    return result;
  }
}
