package dev.ledger.core.internal.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;

/**
 * JSON Merge Patch (RFC 7386): the change from one JSON document to the next, used so that a
 * commit record carries what changed rather than the whole state.
 *
 * <p>A merge patch cannot set a member to {@code null} (null means "remove") and replaces
 * arrays whole. {@link #diff} therefore returns empty when applying its patch would not give
 * back exactly the target; callers then record the whole document instead.
 */
public final class MergePatch {
  private MergePatch() {}

  /**
   * A patch turning {@code source} into {@code target}, or empty when no merge patch
   * reproduces {@code target} exactly (nulls inside changed objects, or a non-object root).
   */
  public static Optional<JsonNode> diff(JsonNode source, JsonNode target) {
    if (!source.isObject() || !target.isObject()) {
      return Optional.empty();
    }
    // Exactness is decided while diffing (a null the patch would have to set), not by
    // applying the patch to a copy of the source and comparing: that cost two passes over
    // the whole document per commit.
    return Optional.ofNullable(diffObjects((ObjectNode) source, (ObjectNode) target, null));
  }

  /**
   * A merge patch, and whether it is the target itself: every member of the target replaced
   * whole and none of the source removed, so that its canonical JSON is the target's, byte for
   * byte (a caller choosing the smaller of patch and target then needs no size of the patch).
   *
   * @param patch the patch
   * @param wholeTarget whether the patch equals the target
   */
  public record Diff(JsonNode patch, boolean wholeTarget) {}

  /**
   * {@link #diff}, telling also whether the patch is the whole target (see {@link Diff}).
   *
   * @param source the document before
   * @param target the document after
   * @return the patch, or empty when no merge patch reproduces {@code target} exactly
   */
  public static Optional<Diff> diffOf(JsonNode source, JsonNode target) {
    if (!source.isObject() || !target.isObject()) {
      return Optional.empty();
    }
    int[] replaced = new int[1];
    ObjectNode patch = diffObjects((ObjectNode) source, (ObjectNode) target, replaced);
    if (patch == null) {
      return Optional.empty();
    }
    // Members replaced whole, as many as the target has and as the patch has (no removals):
    // the patch is the target.
    boolean whole = replaced[0] == target.size() && patch.size() == target.size();
    return Optional.of(new Diff(patch, whole));
  }

  /** Applies {@code patch} to {@code target}, returning a new document (inputs unchanged). */
  public static JsonNode apply(JsonNode target, JsonNode patch) {
    if (!patch.isObject()) {
      return patch.deepCopy();
    }
    ObjectNode result = target.isObject()
        ? ((ObjectNode) target).deepCopy()
        : JsonNodeFactory.instance.objectNode();
    for (Map.Entry<String, JsonNode> field : patch.properties()) {
      JsonNode value = field.getValue();
      if (value.isNull()) {
        result.remove(field.getKey());
      } else {
        JsonNode existing = result.get(field.getKey());
        result.set(field.getKey(), apply(existing == null ? JsonNodeFactory.instance.nullNode()
            : existing, value));
      }
    }
    return result;
  }

  /**
   * Applies an object {@code patch} to {@code target} in place, with the result of
   * {@link #apply}: for a caller that owns {@code target} (a tree no one else holds), so that
   * folding n patches costs the patches, not n copies of the document. Values taken from the
   * patch are copied; {@code patch} is unchanged.
   *
   * @return {@code target}
   */
  public static ObjectNode applyInPlace(ObjectNode target, ObjectNode patch) {
    for (Map.Entry<String, JsonNode> field : patch.properties()) {
      JsonNode value = field.getValue();
      if (value.isNull()) {
        target.remove(field.getKey());
        continue;
      }
      JsonNode existing = target.get(field.getKey());
      if (value.isObject() && existing != null && existing.isObject()) {
        applyInPlace((ObjectNode) existing, (ObjectNode) value);
      } else {
        target.set(field.getKey(), apply(JsonNodeFactory.instance.nullNode(), value));
      }
    }
    return target;
  }

  /**
   * The patch from {@code source} to {@code target}, or null if none is exact; counts in
   * {@code replaced[0]}, if given, the members of {@code target} the patch replaces whole.
   */
  private static ObjectNode diffObjects(ObjectNode source, ObjectNode target, int[] replaced) {
    ObjectNode patch = JsonNodeFactory.instance.objectNode();
    Iterator<String> names = source.fieldNames();
    while (names.hasNext()) {
      String name = names.next();
      if (!target.has(name)) {
        patch.putNull(name);
      }
    }
    for (Map.Entry<String, JsonNode> field : target.properties()) {
      JsonNode before = source.get(field.getKey());
      JsonNode after = field.getValue();
      if (before != null && before.equals(after)) {
        continue;
      }
      if (before != null && before.isObject() && after.isObject()) {
        ObjectNode inner = diffObjects((ObjectNode) before, (ObjectNode) after, null);
        if (inner == null) {
          return null;
        }
        patch.set(field.getKey(), inner);
      } else if (after.isNull() || hasNullMember(after)) {
        return null; // a patch's null removes a member; it cannot set one to null
      } else {
        patch.set(field.getKey(), after.deepCopy());
        if (replaced != null) {
          replaced[0]++;
        }
      }
    }
    return patch;
  }

  /**
   * Whether applying {@code value} as a patch would drop a null member: one in an object
   * reached through objects only (arrays are replaced whole, nulls and all).
   */
  private static boolean hasNullMember(JsonNode value) {
    if (!value.isObject()) {
      return false;
    }
    for (JsonNode member : value) {
      if (member.isNull() || hasNullMember(member)) {
        return true;
      }
    }
    return false;
  }
}
