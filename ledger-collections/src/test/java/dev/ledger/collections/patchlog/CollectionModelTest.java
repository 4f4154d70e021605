package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.collections.Collection;
import dev.ledger.collections.CollectionOptions;
import dev.ledger.collections.CollectionStore;
import dev.ledger.collections.DocumentNotFoundException;
import dev.ledger.collections.DuplicateKeyException;
import dev.ledger.collections.Query;
import dev.ledger.collections.Schema;
import dev.ledger.collections.View;
import dev.ledger.core.memory.InMemoryLedgerStore;
import dev.ledger.testing.base.SeedExtension;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.function.Function;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Random transactions against a brute-force model: after each, queries on an indexed and an
 * unindexed collection, the queue and a counter equal what the model computes; at the end a
 * cold store (checkpoint plus journal) sees the same. Seeded; the seed is printed on failure.
 */
@ExtendWith(SeedExtension.class)
class CollectionModelTest {
  private static final int SCALE = Integer.getInteger("ledger.torture.scale", 1);
  private static final List<String> STATUSES = List.of("queued", "running", "done");

  /**
   * A document.
   *
   * @param id the key
   * @param status indexed in "idx"
   * @param priority sort field, sometimes null
   */
  public record Doc(String id, String status, Integer priority) {}

  private static final Schema SCHEMA = Schema.builder()
      .collection("idx", Doc.class, List.of("id"), List.of("status"))
      .collection("plain", Doc.class, List.of("id"))
      .queue("q", Integer.class)
      .keyValue("kv", String.class, Long.class)
      .build();

  /** The model: documents in insertion order, the queue, the counter. */
  private static final class Model {
    LinkedHashMap<String, Doc> docs = new LinkedHashMap<>();
    ArrayDeque<Integer> queue = new ArrayDeque<>();
    long counter;

    Model copy() {
      Model m = new Model();
      m.docs = new LinkedHashMap<>(docs);
      m.queue = new ArrayDeque<>(queue);
      m.counter = counter;
      return m;
    }
  }

  @Test
  void randomTransactionsMatchTheModel(Random random) {
    InMemoryLedgerStore store = InMemoryLedgerStore.create();
    CollectionStore db = PatchLogCollectionStore.on(store, SCHEMA,
        CollectionOptions.defaults().withCheckpoints(0.3, 0));
    Model model = new Model();
    int nextItem = 0;
    for (int round = 0; round < 200 * SCALE; round++) {
      Model next = model.copy();
      List<Function<Collection<Doc>, Object>> ops = new ArrayList<>();
      int count = 1 + random.nextInt(4);
      boolean failing = false;
      for (int i = 0; i < count; i++) {
        String id = "d" + random.nextInt(12);
        Doc doc = new Doc(id, STATUSES.get(random.nextInt(3)),
            random.nextInt(4) == 0 ? null : random.nextInt(5));
        switch (random.nextInt(4)) {
          case 0 -> {
            if (next.docs.containsKey(id)) {
              failing = true;
            }
            next.docs.put(id, doc);
            ops.add(c -> {
              c.insert(List.of(doc));
              return null;
            });
          }
          case 1 -> {
            if (!next.docs.containsKey(id)) {
              failing = true;
            }
            next.docs.put(id, doc);
            ops.add(c -> c.update(List.of(doc)));
          }
          case 2 -> {
            next.docs.put(id, doc);
            ops.add(c -> c.upsert(List.of(doc)));
          }
          default -> {
            next.docs.remove(id);
            ops.add(c -> {
              c.delete(List.of(doc));
              return null;
            });
          }
        }
      }
      int enqueue = random.nextInt(3);
      int dequeue = random.nextInt(3);
      List<Integer> items = new ArrayList<>();
      for (int i = 0; i < enqueue; i++) {
        items.add(nextItem++);
      }
      next.queue.addAll(items);
      List<Integer> expectedOut = new ArrayList<>();
      for (int i = 0; i < dequeue && !next.queue.isEmpty(); i++) {
        expectedOut.add(next.queue.poll());
      }
      long amount = random.nextInt(7) - 3;
      next.counter += amount;
      boolean fails = failing;
      try {
        List<Integer> out = db.execute("p", tx -> {
          for (String name : List.of("idx", "plain")) {
            Collection<Doc> c = tx.collection(name, Doc.class);
            for (Function<Collection<Doc>, Object> op : ops) {
              op.apply(c);
            }
          }
          tx.queue("q", Integer.class).enqueue(items);
          tx.keyValue("kv", String.class, Long.class).inc("n", amount);
          return tx.queue("q", Integer.class).dequeue(dequeue);
        });
        assertThat(fails).as("round %s should have been refused", round).isFalse();
        assertThat(out).isEqualTo(expectedOut);
        model = next;
      } catch (DuplicateKeyException | DocumentNotFoundException e) {
        assertThat(fails).as("round %s was refused: %s", round, e.getMessage()).isTrue();
      }
      Query query = randomQuery(random);
      Model now = model;
      db.read("p", view -> {
        check(view, now, query);
        return null;
      });
    }
    Model last = model;
    CollectionStore cold = PatchLogCollectionStore.on(store, SCHEMA);
    cold.read("p", view -> {
      check(view, last, Query.all());
      check(view, last, Query.builder().exact("status", "done").sortDescending("priority")
          .build());
      return null;
    });
    JsonNode state = store.ledger("p", JsonNode.class).load().state();
    assertThat(state.at("/c/idx/docs").size()).isEqualTo(last.docs.size());
  }

  private static Query randomQuery(Random random) {
    Query.Builder b = Query.builder();
    switch (random.nextInt(3)) {
      case 0 -> b.exact("status", STATUSES.get(random.nextInt(3)));
      case 1 -> b.within("status", List.of(STATUSES.get(random.nextInt(3)),
          STATUSES.get(random.nextInt(3))));
      default -> { }
    }
    if (random.nextBoolean()) {
      if (random.nextBoolean()) {
        b.sortAscending("priority");
      } else {
        b.sortDescending("priority");
      }
    }
    if (random.nextBoolean()) {
      b.offset(random.nextInt(4)).limit(random.nextInt(5) - 1);
    }
    return b.build();
  }

  private static void check(View view, Model model, Query query) {
    List<Doc> expected = expected(model, query);
    long total = model.docs.values().stream().filter(matcher(query)).count();
    for (String name : List.of("idx", "plain")) {
      var result = view.collection(name, Doc.class).query(query);
      assertThat(result.items()).as("%s %s", name, query).isEqualTo(expected);
      assertThat(result.total()).as("%s total %s", name, query).isEqualTo(total);
      assertThat(view.collection(name, Doc.class).size()).isEqualTo(model.docs.size());
    }
    assertThat(view.queue("q", Integer.class).peek(1000)).containsExactlyElementsOf(
        model.queue);
    assertThat(view.keyValue("kv", String.class, Long.class).get("n").orElse(0L))
        .isEqualTo(model.counter);
  }

  private static Predicate<Doc> matcher(Query query) {
    return doc -> query.conditions().stream().allMatch(c -> switch (c.operator()) {
      case EXACT -> Objects.equals(doc.status(), c.value());
      case WITHIN -> ((List<?>) c.value()).contains(doc.status());
      default -> throw new AssertionError(c);
    });
  }

  private static List<Doc> expected(Model model, Query query) {
    List<Doc> matches = new ArrayList<>(model.docs.values().stream().filter(matcher(query))
        .toList());
    if (query.sort() != null) {
      boolean asc = query.sort().direction() == Query.Direction.ASC;
      Comparator<Doc> byPriority = (a, b) -> {
        if (a.priority() == null || b.priority() == null) {
          int missing = Boolean.compare(a.priority() == null, b.priority() == null);
          return asc ? missing : -missing;
        }
        return asc ? a.priority().compareTo(b.priority()) : b.priority().compareTo(a.priority());
      };
      matches.sort(byPriority);
    }
    int from = Math.min(query.offset(), matches.size());
    int to = query.limit() < 0 ? matches.size() : Math.min(from + query.limit(), matches.size());
    return matches.subList(from, to);
  }
}
