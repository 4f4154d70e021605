package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.collections.Schema;
import dev.ledger.core.internal.json.LedgerJson;
import dev.ledger.core.spi.RawState;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A partition's checkpoint written as bytes ({@link PartitionView#toCanonicalBytes}) is the
 * canonical JSON of its state tree ({@link PartitionView#toTree}) byte for byte: for a view
 * built by patches, one loaded from a compact checkpoint's bytes (documents copied, not
 * parsed), one loaded from indented bytes, and after patches on top (each call after the
 * first copies the bytes the one before wrote for the trees that did not change since, see
 * {@link DocTable#keepWritten}), with key-values, queues,
 * other sections, escapes, doubles and null members. Random states; the seed is printed on
 * failure.
 */
class CanonicalStateBytesTest {
  /**
   * A document.
   *
   * @param id the key
   * @param status indexed
   */
  public record Doc(String id, String status) {}

  private static final Schema SCHEMA = Schema.builder()
      .collection("docs", Doc.class, List.of("id"), List.of("status"))
      .collection("other", Doc.class, List.of("id"), List.of())
      .build();
  private static final String[] WORDS = {"a", "b\"q", "c\\d", "é", "\u0001", "x:null", "𝄞",
      "status", "id", "zz"};

  @Test
  void bytesAreTheCanonicalJsonOfTheTree() {
    long seed = new Random().nextLong();
    try {
      Random random = new Random(seed);
      for (int round = 0; round < 40; round++) {
        ObjectNode state = state(random);
        byte[] compact = LedgerJson.canonical(state);
        byte[] indented = LedgerJson.pretty(state);
        for (byte[] bytes : List.of(compact, indented)) {
          PartitionView view = new PartitionView(SCHEMA);
          view.load(new RawState(bytes, 0, bytes.length, 3, Instant.EPOCH, 0,
              Path.of("state.json")));
          assertSame(view);
          for (int i = 0; i < 4; i++) {
            // Each call keeps the bytes of the trees it wrote; the next copies the unchanged.
            view.applyPatch(patch(random), 4 + i);
            assertSame(view);
          }
          // Patched before any document is used: partial updates wait with the bytes.
          PartitionView waiting = new PartitionView(SCHEMA);
          waiting.load(new RawState(bytes, 0, bytes.length, 3, Instant.EPOCH, 0,
              Path.of("state.json")));
          waiting.applyPatch(patch(random), 4);
          assertSame(waiting);
        }
        PartitionView built = new PartitionView(SCHEMA);
        built.applyPatch(state, 1);
        assertSame(built);
        for (int i = 0; i < 4; i++) {
          built.applyPatch(patch(random), 2 + i);
          assertSame(built);
        }
      }
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
    }
  }

  /** The bytes first (they must not need the trees), then the tree's canonical JSON. */
  private static void assertSame(PartitionView view) {
    byte[] bytes = view.toCanonicalBytes();
    byte[] again = view.toCanonicalBytes();
    byte[] expected = LedgerJson.canonical(view.toTree());
    assertThat(new String(bytes, java.nio.charset.StandardCharsets.UTF_8))
        .isEqualTo(new String(expected, java.nio.charset.StandardCharsets.UTF_8));
    assertThat(again).isEqualTo(expected);
  }

  private static ObjectNode state(Random random) {
    ObjectNode state = Json.NODES.objectNode();
    ObjectNode c = state.putObject("c");
    for (String name : List.of("docs", "other")) {
      if (random.nextInt(4) == 0) {
        continue;
      }
      ObjectNode table = c.putObject(name);
      ObjectNode docs = table.putObject("docs");
      int n = random.nextInt(12);
      for (int i = 0; i < n; i++) {
        ObjectNode entry = docs.putObject("[\"" + word(random) + i + "\"]");
        entry.put("o", i);
        entry.set("d", value(random, 0, true));
      }
      table.put("next", n);
    }
    if (random.nextBoolean()) {
      state.putObject("kv").putObject("settings").set(word(random), value(random, 0, false));
    }
    if (random.nextBoolean()) {
      ObjectNode q = state.putObject("q").putObject("jobs");
      q.putObject("items").set("1", value(random, 0, false));
      q.put("next", 2);
    }
    if (random.nextBoolean()) {
      state.putObject("b-extra").put("v", word(random));
    }
    return state;
  }

  private static ObjectNode patch(Random random) {
    ObjectNode patch = Json.NODES.objectNode();
    ObjectNode docs = patch.putObject("c").putObject("docs").putObject("docs");
    for (int i = 0; i < 3; i++) {
      String key = "[\"" + word(random) + random.nextInt(12) + "\"]";
      switch (random.nextInt(3)) {
        case 0 -> docs.putNull(key);
        case 1 -> docs.putObject(key).set("d", value(random, 0, true));
        default -> {
          ObjectNode entry = docs.putObject(key);
          entry.put("o", 100 + i);
          entry.set("d", value(random, 0, true));
        }
      }
    }
    return patch;
  }

  private static String word(Random random) {
    return WORDS[random.nextInt(WORDS.length)];
  }

  /** A value; objects may hold null members (dropped by a merge), arrays nulls (kept). */
  private static JsonNode value(Random random, int depth, boolean object) {
    int kind = object ? 0 : random.nextInt(depth > 2 ? 5 : 7);
    return switch (kind) {
      case 0 -> {
        ObjectNode o = Json.NODES.objectNode();
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
          o.set(word(random), random.nextInt(6) == 0 ? Json.NODES.nullNode()
              : value(random, depth + 1, false));
        }
        yield o;
      }
      case 1 -> Json.NODES.textNode(word(random));
      case 2 -> Json.NODES.numberNode(random.nextLong());
      case 3 -> Json.NODES.numberNode(random.nextDouble() * 1e-7);
      case 4 -> Json.NODES.booleanNode(random.nextBoolean());
      case 5 -> {
        ArrayNode a = Json.NODES.arrayNode();
        a.add(value(random, depth + 1, false));
        a.addNull();
        yield a;
      }
      default -> value(random, depth + 1, true);
    };
  }
}
