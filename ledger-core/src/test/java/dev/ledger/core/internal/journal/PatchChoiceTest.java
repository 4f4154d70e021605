package dev.ledger.core.internal.journal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.EventDraft;
import dev.ledger.core.internal.json.LedgerJson;
import dev.ledger.core.internal.json.MergePatch;
import dev.ledger.core.internal.json.StringSizes;
import dev.ledger.core.spi.CommitRequest;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The journal line a commit writes is byte for byte the one it wrote before the commit path
 * learned its shortcuts (state sizes from {@link StringSizes}, no count of a patch that is the
 * whole state): each random commit is encoded as the ledger's request path builds it now, and
 * as the plain rule builds it (size the tree by walking it; record the patch when a patch
 * exists and its counted size is below the state's), and the two lines must be equal.
 */
@ExtendWith(SeedExtension.class)
class PatchChoiceTest {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  @Test
  void journalLinesAreTheSameAsThePlainRuleWrites(TestSeed seed) throws Exception {
    Random random = seed.random();
    List<String> pool = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      pool.add(text(random, 60 + random.nextInt(300)));
    }
    StringSizes sizes = new StringSizes();
    JsonNode previous = null;
    ObjectNode current = F.objectNode();
    int patches = 0;
    int wholeStates = 0;
    int inexact = 0;
    for (int i = 0; i < 3000; i++) {
      current = next(random, current, pool);
      if (random.nextInt(5) == 0) {
        pool.set(random.nextInt(pool.size()), text(random, 60 + random.nextInt(300)));
      }
      JsonNode tree = current.deepCopy();
      // As the ledger's request path: sizes through the cache, then normalize or re-read.
      int stateBytes = sizes.canonicalSize(tree);
      int plainBytes = LedgerJson.canonicalSize(tree);
      assertThat(stateBytes).as("%s case %s", seed, i).isEqualTo(plainBytes);
      JsonNode normal = LedgerJson.normalizedInPlace(tree);
      JsonNode state = normal != null ? normal : LedgerJson.reread(tree);
      if (normal == null) {
        inexact++;
      }
      List<EventDraft> drafts = List.of(EventDraft.of("t", Map.of("i", i)));
      CommitRequest request = new CommitRequest(i, state, stateBytes, 0, drafts, null, null,
          normal != null);
      CommitRecord now = CommitRecord.next("root", i, 1 + i, previous, request, NOW);

      // The plain rule, on the same request.
      JsonNode patch = null;
      if (previous != null) {
        Optional<JsonNode> diff = MergePatch.diff(previous, state);
        if (diff.isPresent() && LedgerJson.canonicalSize(diff.get()) < plainBytes) {
          patch = diff.get();
        }
      }
      CommitRecord plain = new CommitRecord(now.format(), "root", i + 1, NOW, 1 + i,
          now.events(), null, null, 0, patch == null ? state : null, patch);
      assertThat(JournalLine.encode(now)).as("%s case %s", seed, i)
          .isEqualTo(JournalLine.encode(plain));
      if (previous != null) {
        if (patch != null) {
          patches++;
        } else {
          wholeStates++;
        }
      }
      previous = now.applyTo(previous);
    }
    // The run met both kinds of record, and states that only a real re-read normalizes.
    assertThat(patches).as("%s", seed).isGreaterThan(100);
    assertThat(wholeStates).as("%s", seed).isGreaterThan(100);
    assertThat(inexact).as("%s", seed).isGreaterThan(100);
  }

  /** The next state: a few members changed, or (often) every member replaced. */
  private static ObjectNode next(Random random, ObjectNode current, List<String> pool) {
    ObjectNode next = current.deepCopy();
    if (random.nextInt(3) == 0) {
      next = F.objectNode();
      int n = random.nextInt(6);
      for (int i = 0; i < n; i++) {
        next.set("m" + random.nextInt(8), value(random, pool, 2));
      }
      return next;
    }
    int changes = 1 + random.nextInt(3);
    for (int i = 0; i < changes; i++) {
      String name = "m" + random.nextInt(8);
      if (random.nextInt(5) == 0) {
        next.remove(name);
      } else {
        next.set(name, value(random, pool, 2));
      }
    }
    return next;
  }

  private static JsonNode value(Random random, List<String> pool, int depth) {
    switch (random.nextInt(depth <= 0 ? 7 : 9)) {
      case 0:
        return F.textNode(pool.get(random.nextInt(pool.size())));
      case 1:
        return F.textNode(text(random, random.nextInt(20)));
      case 2:
        return F.numberNode(random.nextInt(1000) - 500);
      case 3:
        return F.numberNode(random.nextLong());
      case 4:
        // Decimals whose re-read has other digits (100.000 reads back as 100.0), and floats.
        return random.nextBoolean()
            ? F.numberNode(new BigDecimal(BigDecimal.valueOf(random.nextInt(1000), 1)
                .toPlainString() + "0".repeat(random.nextInt(6))))
            : F.numberNode(random.nextInt(100) / 8.0f);
      case 5:
        return random.nextBoolean() ? F.numberNode(random.nextDouble()) : F.booleanNode(true);
      case 6:
        return random.nextInt(4) == 0 ? F.nullNode() : F.textNode("short");
      case 7: {
        ObjectNode object = F.objectNode();
        for (int i = random.nextInt(4); i > 0; i--) {
          object.set("n" + random.nextInt(5), value(random, pool, depth - 1));
        }
        return object;
      }
      default: {
        ArrayNode array = F.arrayNode();
        for (int i = random.nextInt(4); i > 0; i--) {
          array.add(value(random, pool, depth - 1));
        }
        return array;
      }
    }
  }

  private static String text(Random random, int length) {
    String alphabet = "abcdefgh \"\\\n\u0001\u00e9\u4e2d\uD83D\uDE00";
    StringBuilder text = new StringBuilder();
    while (text.length() < length) {
      text.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return text.toString();
  }
}
