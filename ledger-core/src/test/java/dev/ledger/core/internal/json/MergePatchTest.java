package dev.ledger.core.internal.json;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(SeedExtension.class)
class MergePatchTest {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  @Test
  void diffThenApplyGivesTheTargetForRandomDocuments(TestSeed seed) {
    Random random = seed.random();
    int patched = 0;
    for (int i = 0; i < 2000; i++) {
      JsonNode source = randomObject(random, 3);
      JsonNode target = random.nextBoolean() ? mutate(source.deepCopy(), random)
          : randomObject(random, 3);
      Optional<JsonNode> patch = MergePatch.diff(source, target);
      if (patch.isPresent()) {
        patched++;
        assertThat(MergePatch.apply(source, patch.get())).as("%s case %s", seed, i)
            .isEqualTo(target);
      } else {
        assertThat(containsNull(target)).as("%s case %s: only nulls defeat a patch", seed, i)
            .isTrue();
      }
    }
    assertThat(patched).as("%s", seed).isGreaterThan(500);
  }

  @Test
  void applyInPlaceEqualsApplyAndLeavesThePatchAlone(TestSeed seed) {
    Random random = seed.random();
    for (int i = 0; i < 2000; i++) {
      JsonNode source = randomObject(random, 3);
      // Random patches, nulls (removals) and nested objects included: not only diffs.
      ObjectNode patch = (ObjectNode) mutate(randomObject(random, 3), random);
      if (random.nextBoolean()) {
        patch.putNull(source.fieldNames().hasNext() ? source.fieldNames().next() : "gone");
      }
      JsonNode patchBefore = patch.deepCopy();
      JsonNode expected = MergePatch.apply(source, patch);
      ObjectNode own = (ObjectNode) source.deepCopy();
      assertThat(MergePatch.applyInPlace(own, patch)).as("%s case %s", seed, i)
          .isSameAs(own).isEqualTo(expected);
      assertThat(patch).as("%s case %s: patch unchanged", seed, i).isEqualTo(patchBefore);
      // The result shares no node with the patch: changing it leaves the patch as it was.
      mutate(own, random);
      assertThat(patch).as("%s case %s: patch still unchanged", seed, i).isEqualTo(patchBefore);
    }
  }

  @Test
  void diffOfSaysWholeTargetExactlyWhenThePatchIsTheTarget(TestSeed seed) {
    Random random = seed.random();
    int whole = 0;
    for (int i = 0; i < 2000; i++) {
      JsonNode source = randomObject(random, 3);
      JsonNode target = random.nextBoolean() ? mutate(source.deepCopy(), random)
          : randomObject(random, 3);
      Optional<MergePatch.Diff> diff = MergePatch.diffOf(source, target);
      assertThat(diff.map(MergePatch.Diff::patch)).as("%s case %s", seed, i)
          .isEqualTo(MergePatch.diff(source, target));
      if (diff.isPresent() && diff.get().wholeTarget()) {
        whole++;
        assertThat(diff.get().patch()).as("%s case %s", seed, i).isEqualTo(target);
        assertThat(LedgerJson.canonical(diff.get().patch())).as("%s case %s", seed, i)
            .isEqualTo(LedgerJson.canonical(target));
      }
    }
    assertThat(whole).as("%s", seed).isGreaterThan(20);
  }

  @Test
  void aPatchThatChangesEveryMemberIsTheWholeTarget() {
    ObjectNode a = F.objectNode().put("a", 1).put("b", "x");
    ObjectNode b = F.objectNode().put("a", 2).put("b", "y");
    assertThat(MergePatch.diffOf(a, b)).contains(new MergePatch.Diff(b, true));
    // One member kept, one removed, or one nested object patched: not the target.
    assertThat(MergePatch.diffOf(a, F.objectNode().put("a", 1).put("b", "y")).get()
        .wholeTarget()).isFalse();
    assertThat(MergePatch.diffOf(a, F.objectNode().put("a", 2)).get().wholeTarget())
        .isFalse();
    ObjectNode nested = F.objectNode();
    nested.putObject("o").put("x", 1).put("y", 1);
    ObjectNode nestedChanged = F.objectNode();
    nestedChanged.putObject("o").put("x", 1).put("y", 2);
    assertThat(MergePatch.diffOf(nested, nestedChanged).get().wholeTarget()).isFalse();
  }

  @Test
  void diffOfCases() throws Exception {
    // Empty objects: the empty patch is the (empty) target.
    assertThat(MergePatch.diffOf(F.objectNode(), F.objectNode()))
        .contains(new MergePatch.Diff(F.objectNode(), true));
    // Everything new: the target.
    JsonNode added = LedgerJson.parse("{\"a\":1,\"b\":[1,null],\"c\":{\"d\":\"x\"}}"
        .getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertThat(MergePatch.diffOf(F.objectNode(), added))
        .contains(new MergePatch.Diff(added, true));
    // Removal of every member: a patch of nulls, not the (empty) target.
    MergePatch.Diff removed = MergePatch.diffOf(added, F.objectNode()).orElseThrow();
    assertThat(removed.wholeTarget()).isFalse();
    assertThat(removed.patch()).isEqualTo(F.objectNode().putNull("a").putNull("b")
        .putNull("c"));
    // Every member replaced and one removed: not the target.
    ObjectNode source = F.objectNode().put("a", 1).put("b", 2).put("gone", 3);
    ObjectNode target = F.objectNode().put("a", 10).put("b", 20);
    MergePatch.Diff replacedAndRemoved = MergePatch.diffOf(source, target).orElseThrow();
    assertThat(replacedAndRemoved.wholeTarget()).isFalse();
    assertThat(MergePatch.apply(source, replacedAndRemoved.patch())).isEqualTo(target);
    // A nested object changed in part: a nested patch, not the target.
    ObjectNode nestedSource = F.objectNode();
    nestedSource.putObject("o").put("x", 1).put("y", 1);
    nestedSource.put("n", 1);
    ObjectNode nestedTarget = F.objectNode();
    nestedTarget.putObject("o").put("x", 1).put("y", 2);
    nestedTarget.put("n", 2);
    MergePatch.Diff nested = MergePatch.diffOf(nestedSource, nestedTarget).orElseThrow();
    assertThat(nested.wholeTarget()).isFalse();
    assertThat(nested.patch()).isNotEqualTo(nestedTarget);
    assertThat(MergePatch.apply(nestedSource, nested.patch())).isEqualTo(nestedTarget);
    // A nested object changed throughout is patched member by member: its patch happens to
    // equal the target, and wholeTarget stays false (the caller then counts; never wrong).
    ObjectNode allNested = F.objectNode();
    allNested.putObject("o").put("x", 2).put("y", 2);
    allNested.put("n", 2);
    MergePatch.Diff throughout = MergePatch.diffOf(nestedSource, allNested).orElseThrow();
    assertThat(throughout.wholeTarget()).isFalse();
    assertThat(MergePatch.apply(nestedSource, throughout.patch())).isEqualTo(allNested);
    // A null member the patch would have to set: no patch at all, as diff says.
    ObjectNode withNull = F.objectNode().put("a", 2);
    withNull.putNull("b");
    assertThat(MergePatch.diffOf(source, withNull)).isEmpty();
    ObjectNode nestedNull = F.objectNode();
    nestedNull.putObject("c").putNull("d");
    assertThat(MergePatch.diffOf(F.objectNode(), nestedNull)).isEmpty();
    // A null inside an array is fine (arrays are replaced whole).
    assertThat(MergePatch.diffOf(F.objectNode().put("b", 1), added).orElseThrow().wholeTarget())
        .isTrue();
    // Non-object roots: no patch.
    assertThat(MergePatch.diffOf(F.arrayNode(), F.objectNode())).isEmpty();
    assertThat(MergePatch.diffOf(F.objectNode(), F.textNode("x"))).isEmpty();
  }

  @Test
  void patchCarriesOnlyTheChange() throws Exception {
    JsonNode a = LedgerJson.parse("{\"big\":{\"x\":[1,2,3],\"y\":\"long text\"},\"n\":1}"
        .getBytes(java.nio.charset.StandardCharsets.UTF_8));
    JsonNode b = LedgerJson.parse("{\"big\":{\"x\":[1,2,3],\"y\":\"long text\"},\"n\":2}"
        .getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertThat(MergePatch.diff(a, b)).contains(F.objectNode().put("n", 2));
  }

  @Test
  void explicitNullsAndNonObjectRootsFallBackToWholeDocuments() {
    ObjectNode a = F.objectNode().put("a", 1);
    ObjectNode b = F.objectNode().put("a", 1).putNull("b");
    assertThat(MergePatch.diff(a, b)).isEmpty();
    assertThat(MergePatch.diff(F.arrayNode(), F.arrayNode().add(1))).isEmpty();
    assertThat(MergePatch.apply(a, F.textNode("x"))).isEqualTo(F.textNode("x"));
  }

  private static boolean containsNull(JsonNode node) {
    if (node.isNull()) {
      return true;
    }
    for (JsonNode child : node) {
      if (containsNull(child)) {
        return true;
      }
    }
    return false;
  }

  private static JsonNode mutate(JsonNode node, Random random) {
    if (!node.isObject()) {
      return node;
    }
    ObjectNode object = (ObjectNode) node;
    String key = "k" + random.nextInt(6);
    switch (random.nextInt(4)) {
      case 0 -> object.remove(key);
      case 1 -> object.set(key, randomValue(random, 2));
      case 2 -> {
        JsonNode child = object.get(key);
        if (child != null) {
          object.set(key, mutate(child, random));
        }
      }
      default -> object.put(key, random.nextInt(3));
    }
    return object;
  }

  private static ObjectNode randomObject(Random random, int depth) {
    ObjectNode node = F.objectNode();
    int n = random.nextInt(5);
    for (int i = 0; i < n; i++) {
      node.set("k" + random.nextInt(6), randomValue(random, depth - 1));
    }
    return node;
  }

  private static JsonNode randomValue(Random random, int depth) {
    int kind = random.nextInt(depth <= 0 ? 4 : 6);
    return switch (kind) {
      case 0 -> F.numberNode(random.nextInt(10));
      case 1 -> F.textNode("s" + random.nextInt(10));
      case 2 -> F.booleanNode(random.nextBoolean());
      case 3 -> random.nextInt(8) == 0 ? F.nullNode() : F.numberNode(random.nextDouble());
      case 4 -> randomObject(random, depth);
      default -> {
        ArrayNode array = F.arrayNode();
        for (int i = random.nextInt(3); i > 0; i--) {
          array.add(randomValue(random, depth - 1));
        }
        yield array;
      }
    };
  }
}
