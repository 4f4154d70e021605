package dev.ledger.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.collections.Collection;
import dev.ledger.collections.CollectionOptions;
import dev.ledger.collections.CollectionStore;
import dev.ledger.collections.Condition;
import dev.ledger.collections.DocumentNotFoundException;
import dev.ledger.collections.DuplicateKeyException;
import dev.ledger.collections.InvalidQueryException;
import dev.ledger.collections.InvalidValueException;
import dev.ledger.collections.Key;
import dev.ledger.collections.KeyValue;
import dev.ledger.collections.Query;
import dev.ledger.collections.QueryResult;
import dev.ledger.collections.Queue;
import dev.ledger.collections.Schema;
import dev.ledger.collections.TransactionResult;
import dev.ledger.collections.UnknownCollectionException;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.InvalidIdentifierException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.LimitExceededException;
import dev.ledger.core.spi.LoggedCommit;
import dev.ledger.core.spi.PatchLog;
import dev.ledger.core.spi.PatchLogSource;
import dev.ledger.core.spi.StoredState;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link CollectionStore} must show, whatever store holds its partitions:
 * the collections, queries, queues, key-values, transactions, partitions and change
 * feed, and every row of the "where we differ" table of the collection semantics. A backend
 * runs it by extending this class, implementing {@link #openStore} and {@link #collections};
 * a persistent backend also overrides {@link #openSecond}, so that "another process" is
 * another store object on the same data.
 */
public abstract class CollectionStoreContractTest {
  /** For subclasses, one per store implementation. */
  protected CollectionStoreContractTest() {}

  /** The fixed instant the contract clock reads. */
  protected static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

  /**
   * Who owns a rollout; a nested object for dotted paths.
   *
   * @param owner the owner's name, or null
   * @param level a number, or null
   */
  public record Meta(String owner, Integer level) {}

  /**
   * A document keyed by one field.
   *
   * @param rolloutId the key
   * @param status an indexed field
   * @param priority a number, or null
   * @param meta a nested object, or null
   * @param tags an array, or null
   * @param note free text, or null
   */
  public record Rollout(String rolloutId, String status, Integer priority, Meta meta,
      List<String> tags, String note) {
    static Rollout of(String id, String status, Integer priority) {
      return new Rollout(id, status, priority, null, null, null);
    }
  }

  /**
   * A document keyed by two fields.
   *
   * @param rolloutId the first key field
   * @param seq the second key field
   * @param name a payload
   */
  public record Span(String rolloutId, int seq, String name) {}

  /** The store under test: opened before each test, closed after it. */
  protected LedgerStore store;

  /**
   * Opens a fresh, empty store.
   *
   * @param options the options it must use
   * @return a new store holding no ledger
   */
  protected abstract LedgerStore openStore(LedgerOptions options);

  /**
   * A collection store on {@code on}, which this suite opened through {@link #openStore} or
   * {@link #openSecond}: typically
   * {@code PatchLogCollectionStore.on((TheStore) on, schema, options)}.
   *
   * @param on the ledger store
   * @param schema the schema
   * @param options the options
   * @return the collection store
   */
  protected abstract CollectionStore collections(LedgerStore on, Schema schema,
      CollectionOptions options);

  /**
   * Another store object on the data of {@link #store}, as another process would open it.
   * The default, for in-memory stores, returns {@link #store} itself (so a second collection
   * store shares the ledgers but not the views).
   *
   * @return the second store; the suite closes it if it is not {@link #store}
   */
  protected LedgerStore openSecond() {
    return store;
  }

  /**
   * The options every test's store is opened with.
   *
   * @return the defaults with a clock fixed at {@link #NOW} and a 10 s lock wait
   */
  protected LedgerOptions options() {
    return LedgerOptions.defaults().withClock(Clock.fixed(NOW, ZoneOffset.UTC))
        .withLockTimeout(Duration.ofSeconds(10));
  }

  private static final Schema SCHEMA = Schema.builder()
      .collection("rollouts", Rollout.class, List.of("rolloutId"), List.of("status"))
      .collection("plain", Rollout.class, List.of("rolloutId"))
      .collection("spans", Span.class, List.of("rolloutId", "seq"))
      .queue("pending", String.class)
      .keyValue("counters", String.class, Long.class)
      .keyValue("flags", String.class, Boolean.class)
      .build();

  private final List<LedgerStore> seconds = new ArrayList<>();
  private CollectionStore db;

  @BeforeEach
  void openFresh() {
    store = openStore(options());
    db = collections(store, SCHEMA, CollectionOptions.defaults());
  }

  @AfterEach
  void closeStores() {
    for (LedgerStore second : seconds) {
      if (second != store) {
        second.close();
      }
    }
    if (store != null) {
      store.close();
    }
  }

  private CollectionStore second(CollectionOptions options) {
    LedgerStore other = openSecond();
    seconds.add(other);
    return collections(other, SCHEMA, options);
  }

  private <R> R tx(Function<dev.ledger.collections.Transaction, R> work) {
    return db.execute("p-1", work);
  }

  private Collection<Rollout> rollouts(dev.ledger.collections.Transaction tx) {
    return tx.collection("rollouts", Rollout.class);
  }

  private long revision() {
    return store.head("p-1").map(h -> h.revision()).orElse(0L);
  }

  private List<String> ids(List<Rollout> items) {
    return items.stream().map(Rollout::rolloutId).toList();
  }

  private void seed(String collection) {
    db.execute("p-1", tx -> {
      tx.collection(collection, Rollout.class).insert(List.of(
          new Rollout("a", "queued", 3, new Meta("ann", 1), List.of("x", "y"), "Alpha job"),
          new Rollout("b", "running", 1, new Meta("bob", 2), List.of("y"), "beta"),
          new Rollout("c", "queued", null, null, null, null),
          new Rollout("d", "done", 3, new Meta("ann", null), List.of(), "alphabet"),
          new Rollout("e", "running", 2, new Meta(null, 5), List.of("z"), "Gamma")));
      return null;
    });
  }

  private List<String> query(String collection, Query query) {
    return db.read("p-1", view -> ids(view.collection(collection, Rollout.class).query(query)
        .items()));
  }

  // ------------------------------------------------------------------ 1. collections

  @Test
  void insertedDocumentsAreReadBackByKeyAndCounted() {
    tx(tx -> {
      rollouts(tx).insert(List.of(Rollout.of("r1", "queued", 1), Rollout.of("r2", "done", 2)));
      return null;
    });
    db.read("p-1", view -> {
      var coll = view.collection("rollouts", Rollout.class);
      assertThat(coll.get(Key.of("r1"))).contains(Rollout.of("r1", "queued", 1));
      assertThat(coll.get(Key.of("nope"))).isEmpty();
      assertThat(coll.size()).isEqualTo(2);
      return null;
    });
  }

  @Test
  void compositeKeysIdentifyDocumentsByEveryKeyField() {
    db.execute("p-1", tx -> {
      tx.collection("spans", Span.class).insert(List.of(new Span("r1", 1, "a"),
          new Span("r1", 2, "b"), new Span("r2", 1, "c")));
      return null;
    });
    db.read("p-1", view -> {
      var spans = view.collection("spans", Span.class);
      assertThat(spans.get(Key.of("r1", 2))).contains(new Span("r1", 2, "b"));
      assertThat(spans.get(Key.of("r2", 1))).contains(new Span("r2", 1, "c"));
      assertThat(spans.get(Key.of("r2", 2))).isEmpty();
      assertThatThrownBy(() -> spans.get(Key.of("r1"))).isInstanceOf(
          InvalidValueException.class).hasMessageContaining("spans");
      return null;
    });
  }

  @Test
  void duplicateKeyRefusesTheWholeBatchAndNamesCollectionAndKey() {
    tx(tx -> {
      rollouts(tx).insert(List.of(Rollout.of("r1", "queued", 1)));
      return null;
    });
    long before = revision();
    assertThatThrownBy(() -> tx(tx -> {
      rollouts(tx).insert(List.of(Rollout.of("r2", "queued", 1), Rollout.of("r1", "x", 1)));
      return null;
    })).isInstanceOfSatisfying(DuplicateKeyException.class, e -> {
      assertThat(e.collection()).isEqualTo("rollouts");
      assertThat(e.key()).isEqualTo("[\"r1\"]");
      assertThat(e.getMessage()).contains("rollouts").contains("r1").contains("p-1");
    });
    assertThatThrownBy(() -> tx(tx -> {
      rollouts(tx).insert(List.of(Rollout.of("r3", "queued", 1), Rollout.of("r3", "x", 1)));
      return null;
    })).isInstanceOf(DuplicateKeyException.class);
    assertThat(revision()).isEqualTo(before);
    assertThat(db.<Long>read("p-1", v -> v.collection("rollouts", Rollout.class).size()))
        .isEqualTo(1);
  }

  @Test
  void refusedCallInsideACaughtTransactionLeavesEarlierWritesOnly() {
    tx(tx -> {
      rollouts(tx).insert(List.of(Rollout.of("r1", "queued", 1)));
      return null;
    });
    tx(tx -> {
      rollouts(tx).insert(List.of(Rollout.of("r2", "queued", 1)));
      assertThatThrownBy(() -> rollouts(tx).insert(List.of(Rollout.of("r3", "q", 1),
          Rollout.of("r1", "q", 1)))).isInstanceOf(DuplicateKeyException.class);
      assertThat(rollouts(tx).get(Key.of("r3"))).isEmpty();
      return null;
    });
    assertThat(query("rollouts", Query.all())).containsExactly("r1", "r2");
  }

  @Test
  void updateReplacesWholeOrNamedFieldsAndRefusesMissingKeys() {
    tx(tx -> {
      rollouts(tx).insert(List.of(new Rollout("r1", "queued", 1, new Meta("ann", 1),
          List.of("x"), "n"), Rollout.of("r2", "queued", 2)));
      return null;
    });
    List<Rollout> whole = tx(tx -> rollouts(tx).update(List.of(Rollout.of("r1", "done", 5))));
    assertThat(whole).containsExactly(Rollout.of("r1", "done", 5));
    List<Rollout> named = tx(tx -> rollouts(tx).update(List.of(Rollout.of("r2", "running",
        99)), List.of("status")));
    assertThat(named).containsExactly(Rollout.of("r2", "running", 2));
    long before = revision();
    assertThatThrownBy(() -> tx(tx -> rollouts(tx).update(List.of(Rollout.of("r1", "x", 0),
        Rollout.of("missing", "x", 0))))).isInstanceOfSatisfying(
        DocumentNotFoundException.class, e -> {
          assertThat(e.collection()).isEqualTo("rollouts");
          assertThat(e.key()).contains("missing");
        });
    assertThat(revision()).isEqualTo(before);
    assertThat(db.<Optional<Rollout>>read("p-1", v -> v.collection("rollouts", Rollout.class)
        .get(Key.of("r1")))).contains(Rollout.of("r1", "done", 5));
    assertThatThrownBy(() -> tx(tx -> rollouts(tx).update(List.of(Rollout.of("r1", "x", 0)),
        List.of("nosuch")))).isInstanceOf(InvalidQueryException.class)
        .hasMessageContaining("nosuch");
  }

  @Test
  void upsertHasThreeReadings() {
    tx(tx -> {
      rollouts(tx).insert(List.of(Rollout.of("r1", "queued", 1)));
      return null;
    });
    // A list of names: update those fields, or insert the whole item.
    tx(tx -> rollouts(tx).upsert(List.of(Rollout.of("r1", "done", 9),
        Rollout.of("r2", "new", 2)), List.of("status")));
    assertThat(db.<List<Rollout>>read("p-1", v -> v.collection("rollouts", Rollout.class).query(Query.all())
        .items())).containsExactly(Rollout.of("r1", "done", 1), Rollout.of("r2", "new", 2));
    // An empty list: leave an existing item unchanged, or insert.
    List<Rollout> kept = tx(tx -> rollouts(tx).upsert(List.of(Rollout.of("r1", "x", 0),
        Rollout.of("r3", "new", 3)), List.of()));
    assertThat(kept).containsExactly(Rollout.of("r1", "done", 1), Rollout.of("r3", "new", 3));
    // None given: overwrite every field, or insert.
    tx(tx -> rollouts(tx).upsert(List.of(Rollout.of("r1", "over", null))));
    assertThat(db.<Optional<Rollout>>read("p-1", v -> v.collection("rollouts", Rollout.class).get(Key.of("r1"))))
        .contains(Rollout.of("r1", "over", null));
  }

  @Test
  void deleteIgnoresMissingKeysAndUsesTheKeyAlone() {
    tx(tx -> {
      rollouts(tx).insert(List.of(Rollout.of("r1", "queued", 1), Rollout.of("r2", "q", 2)));
      return null;
    });
    tx(tx -> {
      rollouts(tx).delete(List.of(Rollout.of("r1", "other status", 77),
          Rollout.of("missing", null, null)));
      return null;
    });
    assertThat(query("rollouts", Query.all())).containsExactly("r2");
  }

  @Test
  void nullFieldsReadBackAsMissing() {
    tx(tx -> {
      rollouts(tx).insert(List.of(new Rollout("r1", "queued", 1, new Meta(null, 1), null,
          null)));
      return null;
    });
    Rollout back = db.read("p-1", v -> v.collection("rollouts", Rollout.class)
        .get(Key.of("r1")).orElseThrow());
    assertThat(back).isEqualTo(new Rollout("r1", "queued", 1, new Meta(null, 1), null, null));
    JsonNode state = store.ledger("p-1", JsonNode.class).load().state();
    JsonNode doc = state.at("/c/rollouts/docs").elements().next().get("d");
    assertThat(doc.has("note")).isFalse();
    assertThat(doc.get("meta").has("owner")).isFalse();
  }

  @Test
  void badKeysAndWrongTypesAreRefusedWithTypedErrors() {
    assertThatThrownBy(() -> tx(tx -> {
      rollouts(tx).insert(List.of(Rollout.of(null, "queued", 1)));
      return null;
    })).isInstanceOf(InvalidValueException.class).hasMessageContaining("rolloutId");
    @SuppressWarnings({"unchecked", "rawtypes"})
    Function<dev.ledger.collections.Transaction, Object> raw = tx -> {
      ((Collection) rollouts(tx)).insert(List.of(Rollout.of("ok", "q", 1),
          new Span("r", 1, "not a rollout")));
      return null;
    };
    assertThatThrownBy(() -> tx(raw)).isInstanceOf(InvalidValueException.class);
    assertThat(revision()).isZero();
  }

  @Test
  void oversizedDocumentIsRefusedAndNothingIsWritten() {
    CollectionStore small = collections(store, SCHEMA,
        CollectionOptions.defaults().withMaxDocumentBytes(200));
    assertThatThrownBy(() -> small.execute("p-1", tx -> {
      rollouts(tx).insert(List.of(Rollout.of("ok", "q", 1)));
      rollouts(tx).insert(List.of(new Rollout("big", "q", 1, null, null, "x".repeat(500))));
      return null;
    })).isInstanceOf(LimitExceededException.class).hasMessageContaining("rollouts");
    assertThat(revision()).isZero();
  }

  // ------------------------------------------------------------------ 2. queries

  @Test
  void exactWithinAndContainsMatchPerField() {
    seed("plain");
    assertThat(query("plain", Query.builder().exact("status", "queued").build()))
        .containsExactly("a", "c");
    assertThat(query("plain", Query.builder().within("status", List.of("done", "running"))
        .build())).containsExactly("b", "d", "e");
    assertThat(query("plain", Query.builder().exact("priority", 3.0).build()))
        .containsExactly("a", "d");
    assertThat(query("plain", Query.builder().exact("meta.owner", "ann").build()))
        .containsExactly("a", "d");
    assertThat(query("plain", Query.builder().within("meta.level", new Integer[] {2, 5})
        .build())).containsExactly("b", "e");
  }

  @Test
  void containsIsACaseSensitiveSubstringOrAnArrayElementAndFalseOtherwise() {
    seed("plain");
    assertThat(query("plain", Query.builder().contains("note", "lpha").build()))
        .containsExactly("a", "d");
    assertThat(query("plain", Query.builder().contains("note", "alpha").build()))
        .containsExactly("d");
    assertThat(query("plain", Query.builder().contains("note", ".*").build())).isEmpty();
    assertThat(query("plain", Query.builder().contains("tags", "y").build()))
        .containsExactly("a", "b");
    assertThat(query("plain", Query.builder().contains("priority", 3).build())).isEmpty();
  }

  @Test
  void exactNullMatchesAMissingFieldAndContainsNullIsRefused() {
    seed("plain");
    assertThat(query("plain", Query.builder().exact("priority", null).build()))
        .containsExactly("c");
    assertThat(query("plain", Query.builder().exact("meta.owner", null).build()))
        .containsExactly("c", "e");
    assertThat(query("plain", Query.builder().within("priority", java.util.Arrays.asList(
        null, 1)).build())).containsExactly("b", "c");
    assertThatThrownBy(() -> Query.builder().contains("note", null))
        .isInstanceOf(InvalidQueryException.class).hasMessageContaining("note");
  }

  @Test
  void andOrAndMustCombine() {
    seed("plain");
    assertThat(query("plain", Query.builder().exact("status", "queued").exact("priority", 3)
        .build())).containsExactly("a");
    assertThat(query("plain", Query.builder().exact("status", "done").exact("priority", 1)
        .or().build())).containsExactly("b", "d");
    assertThat(query("plain", Query.builder().exact("status", "done").exact("priority", 1)
        .or().must(List.of(Condition.exact("meta.owner", "ann"))).build()))
        .containsExactly("d");
    assertThat(query("plain", Query.builder().must(List.of(Condition.contains("tags", "y")))
        .must(List.of(Condition.exact("status", "running"))).build())).containsExactly("b");
    Map<String, Object> filter = new LinkedHashMap<>();
    filter.put("status", Map.of("exact", "queued"));
    filter.put("note", Map.of("contains", "beta"));
    filter.put("_aggregate", "or");
    filter.put("_must", List.of(Map.of("priority", Map.of("within", List.of(1, 3)))));
    assertThat(query("plain", Query.builder().filter(filter).build()))
        .containsExactly("a", "b");
  }

  @Test
  void orWithNoConditionsMatchesEverythingLikeAnd() {
    seed("plain");
    assertThat(query("plain", Query.builder().or().build()))
        .containsExactly("a", "b", "c", "d", "e");
    assertThat(query("plain", Query.builder().and().build()))
        .containsExactly("a", "b", "c", "d", "e");
    assertThat(query("plain", Query.builder().filter(Map.of("_aggregate", "or")).build()))
        .hasSize(5);
  }

  @Test
  void sortPutsMissingLastAscendingAndFirstDescendingAndKeepsInsertionOrderForTies() {
    seed("plain");
    assertThat(query("plain", Query.builder().sortAscending("priority").build()))
        .containsExactly("b", "e", "a", "d", "c");
    assertThat(query("plain", Query.builder().sortDescending("priority").build()))
        .containsExactly("c", "a", "d", "e", "b");
    assertThat(query("plain", Query.builder().sortAscending("meta.owner").build()))
        .containsExactly("a", "d", "b", "c", "e");
    assertThat(query("plain", Query.builder().sortDescending("meta.owner").build()))
        .containsExactly("c", "e", "b", "a", "d");
  }

  @Test
  void pagingCountsTotalBeforeThePage() {
    seed("plain");
    QueryResult<Rollout> page = db.read("p-1", v -> v.collection("plain", Rollout.class)
        .query(Query.builder().sortAscending("rolloutId").offset(1).limit(2).build()));
    assertThat(ids(page.items())).containsExactly("b", "c");
    assertThat(page.total()).isEqualTo(5);
    QueryResult<Rollout> none = db.read("p-1", v -> v.collection("plain", Rollout.class)
        .query(Query.builder().exact("status", "queued").limit(0).build()));
    assertThat(none.items()).isEmpty();
    assertThat(none.total()).isEqualTo(2);
    QueryResult<Rollout> past = db.read("p-1", v -> v.collection("plain", Rollout.class)
        .query(Query.builder().offset(10).build()));
    assertThat(past.items()).isEmpty();
    assertThat(past.total()).isEqualTo(5);
    assertThat(query("plain", Query.builder().limit(-1).build())).hasSize(5);
  }

  @Test
  void getWithAQueryReturnsTheBestMatchOrNothing() {
    seed("plain");
    assertThat(db.<Optional<Rollout>>read("p-1", v -> v.collection("plain", Rollout.class).get(Query.builder()
        .exact("status", "running").sortDescending("priority").build())))
        .map(Rollout::rolloutId).contains("e");
    assertThat(db.<Optional<Rollout>>read("p-1", v -> v.collection("plain", Rollout.class).get(Query.builder()
        .exact("status", "nope").build()))).isEmpty();
  }

  @Test
  void malformedQueriesAreRefusedWithTheFieldOrOptionNamedWhateverTheData() {
    // Refused on an empty collection too: no document is needed to find the fault.
    assertThatThrownBy(() -> query("plain", Query.builder().sortAscending("nosuch").build()))
        .isInstanceOfSatisfying(InvalidQueryException.class,
            e -> assertThat(e.subject()).isEqualTo("nosuch"));
    assertThatThrownBy(() -> query("plain", Query.builder().exact("meta.nosuch", 1).build()))
        .isInstanceOf(InvalidQueryException.class).hasMessageContaining("meta.nosuch");
    assertThatThrownBy(() -> query("plain", Query.builder().exact("priority", "high")
        .build())).isInstanceOf(InvalidQueryException.class).hasMessageContaining("priority");
    assertThatThrownBy(() -> Query.builder().within("status", "queued"))
        .isInstanceOf(InvalidQueryException.class).hasMessageContaining("status");
    assertThatThrownBy(() -> Query.builder().filter(Map.of("status", Map.of("regex", "a"))))
        .isInstanceOf(InvalidQueryException.class).hasMessageContaining("regex");
    assertThatThrownBy(() -> Query.builder().filter(Map.of("_aggregate", "xor")))
        .isInstanceOfSatisfying(InvalidQueryException.class,
            e -> assertThat(e.subject()).isEqualTo("_aggregate"));
    assertThatThrownBy(() -> Query.builder().limit(-2).build())
        .isInstanceOfSatisfying(InvalidQueryException.class,
            e -> assertThat(e.subject()).isEqualTo("limit"));
    assertThatThrownBy(() -> Query.builder().offset(-1).build())
        .isInstanceOfSatisfying(InvalidQueryException.class,
            e -> assertThat(e.subject()).isEqualTo("offset"));
    assertThatThrownBy(() -> Query.builder().must(List.of(Condition.exact("status", "a"),
        Condition.exact("status", "b"))).build()).isInstanceOf(InvalidQueryException.class)
        .hasMessageContaining("status");
    seed("plain");
    assertThatThrownBy(() -> query("plain", Query.builder().sortAscending("nosuch").build()))
        .isInstanceOf(InvalidQueryException.class);
  }

  @Test
  void indexedQueriesMatchWhatAScanFinds() {
    seed("rollouts");
    seed("plain");
    List<Query> queries = List.of(
        Query.builder().exact("status", "queued").build(),
        Query.builder().exact("status", null).build(),
        Query.builder().within("status", List.of("running", "done", "nope")).build(),
        Query.builder().exact("status", "running").sortDescending("priority").build(),
        Query.builder().exact("status", "queued").exact("priority", 3).or().build(),
        Query.builder().must(List.of(Condition.within("status", List.of("queued", "done"))))
            .contains("note", "alpha").build());
    for (Query q : queries) {
      assertThat(query("rollouts", q)).as(q.toString()).isEqualTo(query("plain", q));
    }
    // The transaction's own writes are seen through the index too.
    List<String> inTx = tx(tx -> {
      rollouts(tx).update(List.of(Rollout.of("b", "queued", 1)));
      rollouts(tx).insert(List.of(Rollout.of("f", "queued", 0)));
      rollouts(tx).delete(List.of(Rollout.of("a", null, null)));
      return ids(rollouts(tx).query(Query.builder().exact("status", "queued").build())
          .items());
    });
    assertThat(inTx).containsExactly("b", "c", "f");
    assertThat(query("rollouts", Query.builder().exact("status", "queued").build()))
        .containsExactly("b", "c", "f");
    assertThat(query("rollouts", Query.builder().exact("status", "running").build()))
        .containsExactly("e");
  }

  // ------------------------------------------------------------------ 3. queues

  @Test
  void queueIsFifoWithPeekHasAndSize() {
    db.execute("p-1", tx -> {
      tx.queue("pending", String.class).enqueue(List.of("a", "b", "c", "a"));
      return null;
    });
    List<String> first = db.execute("p-1", tx -> {
      Queue<String> q = tx.queue("pending", String.class);
      assertThat(q.peek(2)).containsExactly("a", "b");
      assertThat(q.dequeue(0)).isEmpty();
      assertThat(q.peek(-1)).isEmpty();
      return q.dequeue(2);
    });
    assertThat(first).containsExactly("a", "b");
    db.read("p-1", view -> {
      var q = view.queue("pending", String.class);
      assertThat(q.size()).isEqualTo(2);
      assertThat(q.has("a")).isTrue();
      assertThat(q.has("b")).isFalse();
      assertThat(q.peek(10)).containsExactly("c", "a");
      return null;
    });
    assertThat(db.<List<String>>execute("p-1", tx -> tx.queue("pending", String.class).dequeue(10)))
        .containsExactly("c", "a");
    assertThat(db.<List<String>>execute("p-1", tx -> tx.queue("pending", String.class).dequeue(1)))
        .isEmpty();
  }

  @Test
  void queueSeesItsOwnEnqueuesAndRefusesABadBatchWhole() {
    List<String> got = db.execute("p-1", tx -> {
      Queue<String> q = tx.queue("pending", String.class);
      q.enqueue(List.of("x", "y"));
      assertThat(q.size()).isEqualTo(2);
      return q.dequeue(1);
    });
    assertThat(got).containsExactly("x");
    @SuppressWarnings({"unchecked", "rawtypes"})
    Function<dev.ledger.collections.Transaction, Object> raw = tx -> {
      ((Queue) tx.queue("pending", String.class)).enqueue(List.of("ok", 42));
      return null;
    };
    long before = revision();
    assertThatThrownBy(() -> db.execute("p-1", raw)).isInstanceOf(InvalidValueException.class);
    assertThat(revision()).isEqualTo(before);
    assertThat(db.<List<String>>read("p-1", v -> v.queue("pending", String.class).peek(5)))
        .containsExactly("y");
  }

  // ------------------------------------------------------------------ 4. key-values

  @Test
  void keyValueGetSetHasPopIncAndChmax() {
    db.execute("p-1", tx -> {
      KeyValue<String, Long> kv = tx.keyValue("counters", String.class, Long.class);
      assertThat(kv.inc("a", 5L)).isEqualTo(5L);
      assertThat(kv.inc("a", 2L)).isEqualTo(7L);
      assertThat(kv.chmax("a", 3L)).isEqualTo(7L);
      assertThat(kv.chmax("b", 3L)).isEqualTo(3L);
      assertThat(kv.chmax("b", 10L)).isEqualTo(10L);
      kv.set("c", 1L);
      assertThat(kv.pop("c")).contains(1L);
      assertThat(kv.pop("c")).isEmpty();
      return null;
    });
    db.read("p-1", view -> {
      var kv = view.keyValue("counters", String.class, Long.class);
      assertThat(kv.get("a")).contains(7L);
      assertThat(kv.get("b")).contains(10L);
      assertThat(kv.has("c")).isFalse();
      assertThat(kv.size()).isEqualTo(2);
      return null;
    });
  }

  @Test
  void incAndChmaxRefuseNonNumbersAndBooleans() {
    db.execute("p-1", tx -> {
      tx.keyValue("flags", String.class, Boolean.class).set("on", true);
      return null;
    });
    long before = revision();
    assertThatThrownBy(() -> db.execute("p-1", tx -> tx.keyValue("flags", String.class,
        Boolean.class).inc("on", true))).isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("flags");
    assertThatThrownBy(() -> db.execute("p-1", tx -> tx.keyValue("flags", String.class,
        Boolean.class).chmax("new", false))).isInstanceOf(InvalidValueException.class);
    assertThat(revision()).isEqualTo(before);
  }

  // ------------------------------------------------------------------ 5. transactions

  @Test
  void readsInsideATransactionSeeItsOwnWrites() {
    seed("plain");
    long seen = db.execute("p-1", tx -> {
      Collection<Rollout> plain = tx.collection("plain", Rollout.class);
      plain.insert(List.of(Rollout.of("f", "queued", 0)));
      plain.delete(List.of(Rollout.of("a", null, null)));
      plain.update(List.of(Rollout.of("b", "queued", 1)));
      assertThat(plain.get(Key.of("f"))).isPresent();
      assertThat(plain.get(Key.of("a"))).isEmpty();
      assertThat(ids(plain.query(Query.builder().exact("status", "queued").build()).items()))
          .containsExactly("b", "c", "f");
      return plain.size();
    });
    assertThat(seen).isEqualTo(5);
  }

  @Test
  void aThrowingCallbackWritesNothing() {
    seed("plain");
    long before = revision();
    assertThatThrownBy(() -> db.execute("p-1", tx -> {
      tx.collection("plain", Rollout.class).insert(List.of(Rollout.of("z", "q", 1)));
      tx.keyValue("counters", String.class, Long.class).inc("n", 1L);
      throw new IllegalStateException("changed my mind");
    })).hasMessage("changed my mind");
    assertThat(revision()).isEqualTo(before);
    assertThat(query("plain", Query.all())).doesNotContain("z");
  }

  @Test
  void aCallbackThatWritesNothingCommitsNothing() {
    seed("plain");
    long before = revision();
    assertThat(db.<Long>execute("p-1", tx -> tx.collection("plain", Rollout.class).size()))
        .isEqualTo(5);
    assertThat(revision()).isEqualTo(before);
  }

  @Test
  void undeclaredOrMistypedNamesAreRefused() {
    assertThatThrownBy(() -> db.execute("p-1", tx -> tx.collection("nosuch", Rollout.class)))
        .isInstanceOfSatisfying(UnknownCollectionException.class,
            e -> assertThat(e.name()).isEqualTo("nosuch"));
    assertThatThrownBy(() -> db.read("p-1", v -> v.collection("spans", Rollout.class)))
        .isInstanceOf(UnknownCollectionException.class).hasMessageContaining("spans");
    assertThatThrownBy(() -> db.read("p-1", v -> v.queue("rollouts", String.class)))
        .isInstanceOf(UnknownCollectionException.class);
    assertThatThrownBy(() -> db.read("p-1", v -> v.keyValue("counters", String.class,
        Integer.class))).isInstanceOf(UnknownCollectionException.class);
  }

  @Test
  void aReadCannotWrite() {
    assertThatThrownBy(() -> db.read("p-1", v -> {
      ((Collection<Rollout>) v.collection("plain", Rollout.class)).insert(List.of(
          Rollout.of("a", "q", 1)));
      return null;
    })).isInstanceOf(IllegalStateException.class);
    assertThat(revision()).isZero();
  }

  @Test
  void aTransactionCannotNestOnItsPartitionButMayReadIt() {
    seed("plain");
    long before = revision();
    assertThatThrownBy(() -> db.execute("p-1", tx -> {
      tx.collection("plain", Rollout.class).insert(List.of(Rollout.of("z", "q", 1)));
      return db.execute("p-1", inner -> null);
    })).isInstanceOf(IllegalStateException.class).hasMessageContaining("p-1");
    assertThat(revision()).isEqualTo(before);
    long outside = db.execute("p-1", tx -> {
      tx.collection("plain", Rollout.class).insert(List.of(Rollout.of("z", "q", 1)));
      return db.<Long>read("p-1", view -> view.collection("plain", Rollout.class).size());
    });
    assertThat(outside).isEqualTo(5);
    assertThat(db.<Long>execute("p-2", tx -> db.<Long>execute("p-3", inner -> 7L)))
        .isEqualTo(7L);
  }

  @Test
  void aCommandRunsOnceAndItsRetryReturnsWithoutWriting() {
    AtomicInteger runs = new AtomicInteger();
    TransactionResult<String> first = db.execute("p-1", "cmd-1", tx -> {
      runs.incrementAndGet();
      tx.collection("plain", Rollout.class).insert(List.of(Rollout.of("a", "q", 1)));
      return "done";
    });
    assertThat(first.replayed()).isFalse();
    assertThat(first.value()).isEqualTo("done");
    long after = revision();
    TransactionResult<String> again = db.execute("p-1", "cmd-1", tx -> {
      runs.incrementAndGet();
      tx.collection("plain", Rollout.class).insert(List.of(Rollout.of("a", "q", 1)));
      return "done";
    });
    assertThat(again.replayed()).isTrue();
    assertThat(again.revision()).isEqualTo(first.revision());
    assertThat(runs).hasValue(1);
    assertThat(revision()).isEqualTo(after);
    // After a restart (a new collection store, cold view) the command is still known.
    TransactionResult<String> restarted = second(CollectionOptions.defaults())
        .execute("p-1", "cmd-1", tx -> "ran again");
    assertThat(restarted.replayed()).isTrue();
    assertThat(revision()).isEqualTo(after);
  }

  // ------------------------------------------------------------------ 6. partitions

  @Test
  void partitionsAreIndependentLedgers() {
    db.execute("p-1", tx -> {
      tx.collection("plain", Rollout.class).insert(List.of(Rollout.of("a", "q", 1)));
      return null;
    });
    db.execute("p-2", tx -> {
      tx.collection("plain", Rollout.class).insert(List.of(Rollout.of("a", "other", 2)));
      return null;
    });
    assertThat(db.<Optional<Rollout>>read("p-2", v -> v.collection("plain", Rollout.class).get(Key.of("a"))))
        .contains(Rollout.of("a", "other", 2));
    assertThat(store.rootIds()).containsExactly("p-1", "p-2");
    assertThatThrownBy(() -> db.read("../bad", v -> null))
        .isInstanceOf(InvalidIdentifierException.class);
  }

  // ------------------------------------------------------------------ 7. change feed

  @Test
  void everyWriteIsOneJournalEventAndTheLedgerHoldsTheFoldedState() {
    db.execute("p-1", tx -> {
      tx.collection("plain", Rollout.class).insert(List.of(Rollout.of("a", "q", 1)));
      tx.queue("pending", String.class).enqueue(List.of("job"));
      tx.keyValue("counters", String.class, Long.class).inc("n", 2L);
      return null;
    });
    db.execute("p-1", tx -> {
      tx.collection("plain", Rollout.class).update(List.of(Rollout.of("a", "done", null)));
      tx.queue("pending", String.class).dequeue(1);
      tx.collection("plain", Rollout.class).delete(List.of(Rollout.of("a", null, null)));
      return null;
    });
    List<Event> events = store.ledger("p-1", JsonNode.class).events(Cursor.START, 100)
        .events();
    assertThat(events).extracting(Event::type).containsExactly("collection.insert",
        "queue.enqueue", "keyValue.set", "collection.update", "queue.dequeue",
        "collection.delete");
    assertThat(events.get(0).payload().get("collection").asText()).isEqualTo("plain");
    assertThat(events.get(0).payload().get("key").get(0).asText()).isEqualTo("a");
    assertThat(events.get(0).payload().at("/document/status").asText()).isEqualTo("q");
    assertThat(events.get(3).payload().at("/patch/status").asText()).isEqualTo("done");
    assertThat(events.get(3).payload().at("/patch/priority").isNull()).isTrue();
    assertThat(events.get(2).payload().get("value").asLong()).isEqualTo(2);
    JsonNode state = store.ledger("p-1", JsonNode.class).load().state();
    assertThat(state.at("/c/plain/docs").size()).isZero();
    assertThat(state.at("/kv/counters").toString()).isEqualTo("{\"\\\"n\\\"\":2}");
    assertThat(state.at("/q/pending/items").size()).isZero();
  }

  @Test
  void projectGivesTheNamedTopLevelFieldsInInsertionOrderWarmColdAndInsideATransaction() {
    CollectionStore eager = collections(store, SCHEMA,
        CollectionOptions.defaults().withCheckpoints(0.5, 0));
    seed("plain");
    // A checkpoint holds b..e (the eager store writes one); the journal after it changes b,
    // deletes d and inserts f.
    eager.execute("p-1", tx -> {
      tx.collection("plain", Rollout.class).delete(List.of(Rollout.of("a", null, null)));
      return null;
    });
    // Another collection store with the default checkpoints (none this small) commits it.
    db.execute("p-1", tx -> {
      Collection<Rollout> plain = tx.collection("plain", Rollout.class);
      plain.update(List.of(new Rollout("b", "done", 7, new Meta("bob", null), null, "B")));
      plain.delete(List.of(Rollout.of("d", null, null)));
      plain.insert(List.of(Rollout.of("f", "queued", 4)));
      return null;
    });
    List<String> fields = List.of("status", "rolloutId", "meta", "tags");
    Function<dev.ledger.collections.View, List<String>> projected = v -> {
      List<String> out = new ArrayList<>();
      v.collection("plain", Rollout.class).project(fields, node -> out.add(node.toString()));
      return out;
    };
    List<String> expected = List.of(
        "{\"status\":\"done\",\"rolloutId\":\"b\",\"meta\":{\"owner\":\"bob\"}}",
        "{\"status\":\"queued\",\"rolloutId\":\"c\"}",
        "{\"status\":\"running\",\"rolloutId\":\"e\",\"meta\":{\"level\":5},"
            + "\"tags\":[\"z\"]}",
        "{\"status\":\"queued\",\"rolloutId\":\"f\"}");
    assertThat(eager.read("p-1", projected)).isEqualTo(expected);
    assertThat(second(CollectionOptions.defaults()).read("p-1", projected)).isEqualTo(expected);
    // Inside a transaction: its own writes, in insertion order; an action that writes does
    // not change what the pass visits.
    List<String> inside = eager.execute("p-1", tx -> {
      Collection<Rollout> plain = tx.collection("plain", Rollout.class);
      plain.update(List.of(Rollout.of("c", "running", 1)));
      plain.insert(List.of(Rollout.of("g", "new", 1)));
      List<String> out = new ArrayList<>();
      plain.project(List.of("rolloutId", "status"), node -> {
        out.add(node.toString());
        plain.insert(List.of(Rollout.of("x" + out.size(), "added", 0)));
      });
      return out;
    });
    assertThat(inside).containsExactly("{\"rolloutId\":\"b\",\"status\":\"done\"}",
        "{\"rolloutId\":\"c\",\"status\":\"running\"}",
        "{\"rolloutId\":\"e\",\"status\":\"running\"}",
        "{\"rolloutId\":\"f\",\"status\":\"queued\"}",
        "{\"rolloutId\":\"g\",\"status\":\"new\"}");
    // The projection is the caller's: changing it changes no document.
    eager.read("p-1", v -> {
      v.collection("plain", Rollout.class).project(List.of("meta"),
          node -> node.put("meta", "changed"));
      return null;
    });
    assertThat(eager.read("p-1", projected)).startsWith(expected.get(0));
  }

  @Test
  void projectRefusesUnknownNestedEmptyAndRepeatedFieldsBeforeReading() {
    seed("plain");
    db.read("p-1", v -> {
      var plain = v.collection("plain", Rollout.class);
      assertThatThrownBy(() -> plain.project(List.of("status", "nope"), node -> { }))
          .isInstanceOf(InvalidQueryException.class).hasMessageContaining("nope");
      assertThatThrownBy(() -> plain.project(List.of("meta.owner"), node -> { }))
          .isInstanceOf(InvalidQueryException.class).hasMessageContaining("meta.owner");
      assertThatThrownBy(() -> plain.project(List.of(), node -> { }))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("plain");
      assertThatThrownBy(() -> plain.project(List.of("status", "status"), node -> { }))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'status'");
      return null;
    });
  }

  @Test
  void aColdStoreRebuildsTheViewFromCheckpointAndJournal() {
    CollectionStore eager = collections(store, SCHEMA,
        CollectionOptions.defaults().withCheckpoints(0.5, 0));
    for (int i = 0; i < 20; i++) {
      int n = i;
      eager.execute("p-1", tx -> {
        tx.collection("rollouts", Rollout.class).upsert(List.of(Rollout.of("r" + (n % 7),
            n % 2 == 0 ? "even" : "odd", n)));
        tx.queue("pending", String.class).enqueue(List.of("item-" + n));
        if (n % 3 == 0) {
          tx.queue("pending", String.class).dequeue(1);
        }
        tx.keyValue("counters", String.class, Long.class).inc("total", (long) n);
        return null;
      });
    }
    Function<dev.ledger.collections.View, List<Object>> snapshot = v -> List.of(
        v.collection("rollouts", Rollout.class).query(Query.all()).items(),
        v.collection("rollouts", Rollout.class).query(Query.builder().exact("status", "odd")
            .build()).items(),
        v.queue("pending", String.class).peek(100),
        v.keyValue("counters", String.class, Long.class).get("total"));
    List<Object> warm = eager.read("p-1", snapshot);
    List<Object> cold = second(CollectionOptions.defaults()).read("p-1", snapshot);
    assertThat(cold).isEqualTo(warm);
    assertThat(warm.get(3)).isEqualTo(Optional.of(190L));
  }

  @Test
  void aCheckpointIsTheFoldOfTheJournalAndIsWrittenOnlyWhenTheJournalOutgrowsTheData() {
    PatchLog log = ((PatchLogSource) store).patchLog("p-1");
    CollectionStore always = collections(store, SCHEMA,
        CollectionOptions.defaults().withCheckpoints(1e-9, 0));
    for (int i = 0; i < 5; i++) {
      int n = i;
      always.execute("p-1", tx -> {
        tx.collection("rollouts", Rollout.class).upsert(List.of(new Rollout("r" + (n % 3),
            "s" + n, n % 2 == 0 ? n : null, new Meta(n % 2 == 0 ? "x" : null, n), List.of(),
            null)));
        tx.queue("pending", String.class).enqueue(List.of("i" + n));
        tx.queue("pending", String.class).dequeue(n % 2);
        tx.keyValue("counters", String.class, Long.class).inc("k" + (n % 2), 1L);
        return null;
      });
      StoredState checkpoint = log.checkpoint().orElseThrow();
      assertThat(checkpoint.revision()).isEqualTo(revision());
      assertThat(checkpoint.state()).isEqualTo(foldJournal(log));
      assertThat(store.ledger("p-1", JsonNode.class).load().state()).isEqualTo(
          foldJournal(log));
    }
    assertThat(log.journalBytesSinceCheckpoint()).isZero();
    long at = log.checkpoint().orElseThrow().revision();
    // The default policy: a small journal after the checkpoint does not call for another.
    db.execute("p-1", tx -> tx.keyValue("counters", String.class, Long.class).inc("k0", 1L));
    assertThat(log.checkpoint().orElseThrow().revision()).isEqualTo(at);
    assertThat(log.journalBytesSinceCheckpoint()).isPositive();
  }

  /** The state folded from the whole journal by RFC 7386, independently of the store. */
  private static JsonNode foldJournal(PatchLog log) {
    JsonNode state = null;
    try (Stream<LoggedCommit> commits = log.commitsAfter(0)) {
      for (LoggedCommit commit : (Iterable<LoggedCommit>) commits::iterator) {
        state = commit.state() != null ? commit.state().deepCopy()
            : mergePatch(state, commit.patch());
      }
    }
    return state;
  }

  private static JsonNode mergePatch(JsonNode target, JsonNode patch) {
    if (!patch.isObject()) {
      return patch.deepCopy();
    }
    ObjectNode result = target != null && target.isObject() ? ((ObjectNode) target).deepCopy()
        : JsonNodeFactory.instance.objectNode();
    for (Map.Entry<String, JsonNode> field : patch.properties()) {
      if (field.getValue().isNull()) {
        result.remove(field.getKey());
      } else {
        result.set(field.getKey(), mergePatch(result.get(field.getKey()), field.getValue()));
      }
    }
    return result;
  }

  // ------------------------------------------------------------------ concurrency

  @Test
  void racingThreadsNeitherLoseIncrementsNorDequeueTwice() throws Exception {
    int threads = 4;
    int perThread = 25;
    db.execute("p-1", tx -> {
      List<String> items = new ArrayList<>();
      for (int i = 0; i < threads * perThread; i++) {
        items.add("job-" + i);
      }
      tx.queue("pending", String.class).enqueue(items);
      return null;
    });
    Set<String> taken = ConcurrentHashMap.newKeySet();
    AtomicInteger duplicates = new AtomicInteger();
    runConcurrently(threads, t -> {
      for (int i = 0; i < perThread; i++) {
        List<String> got = db.execute("p-1", tx -> {
          tx.keyValue("counters", String.class, Long.class).inc("n", 1L);
          return tx.queue("pending", String.class).dequeue(1);
        });
        for (String item : got) {
          if (!taken.add(item)) {
            duplicates.incrementAndGet();
          }
        }
      }
    });
    assertThat(duplicates).hasValue(0);
    assertThat(taken).hasSize(threads * perThread);
    assertThat(db.<Optional<Long>>read("p-1", v -> v.keyValue("counters", String.class, Long.class).get("n")))
        .contains((long) threads * perThread);
  }

  @Test
  void twoStoresOnOneLedgerInterleaveWithoutLosingWrites() throws Exception {
    CollectionStore other = second(CollectionOptions.defaults().withAttempts(1000,
        Duration.ofMillis(1)));
    CollectionStore mine = collections(store, SCHEMA, CollectionOptions.defaults()
        .withAttempts(1000, Duration.ofMillis(1)));
    int perStore = 30;
    db.execute("p-1", tx -> {
      List<String> items = new ArrayList<>();
      for (int i = 0; i < 2 * perStore; i++) {
        items.add("job-" + i);
      }
      tx.queue("pending", String.class).enqueue(items);
      return null;
    });
    Set<String> taken = ConcurrentHashMap.newKeySet();
    AtomicInteger duplicates = new AtomicInteger();
    runConcurrently(2, t -> {
      CollectionStore s = t == 0 ? mine : other;
      for (int i = 0; i < perStore; i++) {
        int n = i;
        List<String> got = s.execute("p-1", tx -> {
          tx.keyValue("counters", String.class, Long.class).inc("n", 1L);
          tx.collection("plain", Rollout.class).insert(List.of(Rollout.of(t + "-" + n, "q",
              n)));
          return tx.queue("pending", String.class).dequeue(1);
        });
        for (String item : got) {
          if (!taken.add(item)) {
            duplicates.incrementAndGet();
          }
        }
      }
    });
    assertThat(duplicates).hasValue(0);
    assertThat(taken).hasSize(2 * perStore);
    for (CollectionStore s : List.of(mine, other)) {
      assertThat(s.<Optional<Long>>read("p-1", v -> v.keyValue("counters", String.class, Long.class)
          .get("n"))).contains(2L * perStore);
      assertThat(s.<Long>read("p-1", v -> v.collection("plain", Rollout.class).size()))
          .isEqualTo(2L * perStore);
    }
  }

  @Test
  void aConflictWithAnotherStoreCatchesUpAndRunsTheCallbackAgain() {
    CollectionStore other = second(CollectionOptions.defaults());
    db.execute("p-1", tx -> tx.keyValue("counters", String.class, Long.class).inc("n", 1L));
    AtomicInteger runs = new AtomicInteger();
    long seen = db.execute("p-1", tx -> {
      KeyValue<String, Long> kv = tx.keyValue("counters", String.class, Long.class);
      if (runs.incrementAndGet() == 1) {
        // Another process commits between this callback's read and its commit.
        other.execute("p-1", tx2 -> tx2.keyValue("counters", String.class, Long.class)
            .inc("n", 10L));
      }
      return kv.inc("n", 100L);
    });
    assertThat(runs).hasValue(2);
    assertThat(seen).isEqualTo(111L);
    assertThat(other.<Optional<Long>>read("p-1", v -> v.keyValue("counters", String.class,
        Long.class).get("n"))).contains(111L);
  }

  @Test
  void aReadSeesAConsistentSnapshotWhileTransactionsRun() throws Exception {
    // Every transaction moves one unit between two counters: any snapshot sums to 100.
    db.execute("p-1", tx -> {
      tx.keyValue("counters", String.class, Long.class).set("left", 100L);
      tx.keyValue("counters", String.class, Long.class).set("right", 0L);
      return null;
    });
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicInteger torn = new AtomicInteger();
    AtomicInteger reads = new AtomicInteger();
    runConcurrently(2, t -> {
      if (t == 0) {
        try {
          for (int i = 0; i < 100; i++) {
            db.execute("p-1", tx -> {
              KeyValue<String, Long> kv = tx.keyValue("counters", String.class, Long.class);
              kv.inc("left", -1L);
              kv.inc("right", 1L);
              return null;
            });
          }
        } finally {
          writing.set(false);
        }
      } else {
        while (writing.get() || reads.get() == 0) {
          long sum = db.read("p-1", v -> {
            var kv = v.keyValue("counters", String.class, Long.class);
            return kv.get("left").orElseThrow() + kv.get("right").orElseThrow();
          });
          reads.incrementAndGet();
          if (sum != 100) {
            torn.incrementAndGet();
          }
        }
      }
    });
    assertThat(reads.get()).isPositive();
    assertThat(torn).hasValue(0);
    assertThat(db.<Optional<Long>>read("p-1", v -> v.keyValue("counters", String.class, Long.class)
        .get("right"))).contains(100L);
  }

  /** A task of one thread of {@link #runConcurrently}. */
  private interface Task {
    void run(int thread) throws Exception;
  }

  private static void runConcurrently(int threads, Task task) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        futures.add(pool.submit(() -> {
          start.await();
          task.run(thread);
          return null;
        }));
      }
      start.countDown();
      for (Future<?> f : futures) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
