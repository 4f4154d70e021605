package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;

/** The comparison of two document trees that the tree-building tests share. */
final class SameTrees {
  private SameTrees() {}

  /** Equal as trees, as canonical text, and node class by node class (number forms). */
  static void assertSameTree(JsonNode actual, JsonNode expected) {
    assertThat(actual).isEqualTo(expected);
    assertThat(Json.text(actual)).isEqualTo(Json.text(expected));
    assertThat(classes(actual)).isEqualTo(classes(expected));
  }

  /** The node classes of a tree in document order, for comparing number forms. */
  static String classes(JsonNode node) {
    StringBuilder out = new StringBuilder(node.getClass().getSimpleName());
    if (node.isObject()) {
      node.properties().forEach(e -> out.append(' ').append(e.getKey()).append('=')
          .append(classes(e.getValue())));
    } else if (node.isArray()) {
      node.forEach(child -> out.append(" [").append(classes(child)).append(']'));
    }
    return out.toString();
  }
}
