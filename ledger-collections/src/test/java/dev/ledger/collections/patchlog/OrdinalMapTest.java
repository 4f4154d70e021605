package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link OrdinalMap} holds what the {@code TreeMap<Long, Doc>} it replaced held, in the same
 * order, through random appends, puts over existing ordinals, out-of-order puts (sorted
 * before the next ordered access, as a table does) and removals. Seeded; the seed is printed
 * on failure.
 */
@ExtendWith(SeedExtension.class)
class OrdinalMapTest {
  private static DocTable.Doc doc(long ordinal, int version) {
    return new DocTable.Doc("k" + ordinal + "v" + version, ordinal, Json.NODES.objectNode(), 2);
  }

  private static List<DocTable.Doc> listed(OrdinalMap map) {
    List<DocTable.Doc> out = new ArrayList<>();
    map.values().forEach(out::add);
    return out;
  }

  @Test
  void holdsWhatATreeMapHoldsInTheSameOrder(TestSeed seed) {
    Random random = seed.random();
    for (int trial = 0; trial < 50; trial++) {
      OrdinalMap map = new OrdinalMap();
      TreeMap<Long, DocTable.Doc> model = new TreeMap<>();
      long next = 0;
      int steps = 1 + random.nextInt(2_000);
      for (int step = 0; step < steps; step++) {
        int op = random.nextInt(10);
        DocTable.Doc doc;
        if (op < 4 || model.isEmpty()) {
          doc = doc(next++, step); // an insert above every ordinal
          map.put(doc);
          model.put(doc.ordinal, doc);
        } else if (op < 6) {
          // A new version at an existing (or once removed) ordinal.
          doc = doc(random.nextLong(next), step);
          map.put(doc);
          model.put(doc.ordinal, doc);
        } else if (op < 7) {
          // Out of order, as a checkpoint loads: possibly repeated before the next sort.
          doc = doc(random.nextLong(next + 5), step);
          next = Math.max(next, doc.ordinal + 1);
          map.put(doc);
          model.put(doc.ordinal, doc);
        } else if (op < 9) {
          long ordinal = random.nextLong(next + 1);
          map.remove(ordinal);
          model.remove(ordinal);
        } else {
          assertThat(listed(map)).isEqualTo(new ArrayList<>(model.values()));
        }
      }
      assertThat(listed(map)).isEqualTo(new ArrayList<>(model.values()));
      // Removing everything leaves nothing, and the map takes puts again.
      for (Map.Entry<Long, DocTable.Doc> e : model.entrySet()) {
        map.remove(e.getKey());
      }
      assertThat(listed(map)).isEmpty();
      DocTable.Doc again = doc(3, -1);
      map.put(again);
      assertThat(listed(map)).containsExactly(again);
    }
  }

  @Test
  void ordinalsTooLargeToPackSortByTheComparatorAndTheLastPutStillWins(TestSeed seed) {
    Random random = seed.random();
    OrdinalMap map = new OrdinalMap();
    TreeMap<Long, DocTable.Doc> model = new TreeMap<>();
    long base = Long.MAX_VALUE / 4;
    for (int step = 0; step < 1_000; step++) {
      DocTable.Doc doc = doc(base + random.nextInt(300), step);
      map.put(doc);
      model.put(doc.ordinal, doc);
    }
    assertThat(listed(map)).isEqualTo(new ArrayList<>(model.values()));
  }

  @Test
  void aCheckpointLoadedInKeyOrderComesOutInOrdinalOrder(TestSeed seed) {
    Random random = seed.random();
    List<DocTable.Doc> docs = new ArrayList<>();
    for (int i = 0; i < 50_000; i++) {
      docs.add(doc(i * 3L + random.nextInt(3), 0));
    }
    java.util.Collections.shuffle(docs, random);
    OrdinalMap map = new OrdinalMap();
    TreeMap<Long, DocTable.Doc> model = new TreeMap<>();
    for (DocTable.Doc doc : docs) {
      map.put(doc);
      model.put(doc.ordinal, doc);
    }
    assertThat(listed(map)).isEqualTo(new ArrayList<>(model.values()));
  }
}
