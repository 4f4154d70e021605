package dev.ledger.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.collections.Collection;
import dev.ledger.collections.CollectionStore;
import dev.ledger.collections.Condition;
import dev.ledger.collections.Query;
import dev.ledger.collections.QueryResult;
import dev.ledger.collections.Schema;
import dev.ledger.collections.patchlog.PatchLogCollectionStore;
import dev.ledger.core.memory.InMemoryLedgerStore;
import dev.ledger.testing.base.SeedExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Queries of the collection store on PostgreSQL, answered as SQL on the documents table,
 * against the in-memory engine on the same data (the same transactions run on an in-memory
 * store): the same items in the same order, the same totals, the same refusals.
 */
@ExtendWith(SeedExtension.class)
class PostgresDocumentQueryTest {
  /** A nested value. */
  record Inner(String s, Object v) {}

  /** A document with fields of every kind, nullable. */
  record Doc(String id, String status, Integer n, Double x, Boolean flag, Inner inner,
      List<Object> tags, Object mixed) {}

  private static final Schema SCHEMA = Schema.builder()
      .collection("docs", Doc.class, List.of("id"), List.of("status", "n", "mixed"))
      .build();

  private String schemaName;
  private PostgresLedgerStore pg;
  private InMemoryLedgerStore memory;
  private CollectionStore sql;
  private CollectionStore reference;

  @BeforeEach
  void open() {
    schemaName = TestDatabase.freshSchema();
    pg = PostgresLedgerStore.open(TestDatabase.dataSource(), schemaName,
        dev.ledger.core.LedgerOptions.defaults());
    memory = InMemoryLedgerStore.create();
    sql = PatchLogCollectionStore.on(pg, SCHEMA);
    reference = PatchLogCollectionStore.on(memory, SCHEMA);
  }

  @AfterEach
  void close() {
    pg.close();
    memory.close();
  }

  private static final Object[] MIXED = {null, 1, 1.0, 2, 2.5, -3, 0, "1", "a", "ab", "",
      "B", true, false, 10_000_000_000L};
  private static final String[] STRINGS = {null, "a", "ab", "abc", "B", "", "b a", "x'y",
      "ä", "A"};

  private static <T> T pick(Random r, T[] values) {
    return values[r.nextInt(values.length)];
  }

  private static Doc randomDoc(Random r, String id) {
    Inner inner = r.nextInt(4) == 0 ? null : new Inner(pick(r, STRINGS), pick(r, MIXED));
    List<Object> tags = null;
    if (r.nextInt(3) > 0) {
      tags = new ArrayList<>();
      int size = r.nextInt(4);
      for (int i = 0; i < size; i++) {
        tags.add(r.nextBoolean() ? pick(r, STRINGS) : pick(r, MIXED));
      }
    }
    Integer n = r.nextInt(5) == 0 ? null : r.nextInt(7) - 2;
    Double x = r.nextInt(4) == 0 ? null : (r.nextInt(9) - 4) / 2.0;
    Boolean flag = r.nextInt(3) == 0 ? null : r.nextBoolean();
    return new Doc(id, pick(r, STRINGS), n, x, flag, inner, tags, pick(r, MIXED));
  }

  private static final String[] FIELDS = {"status", "n", "x", "flag", "inner", "inner.s",
      "inner.v", "tags", "mixed", "id", "nope", "inner.nope"};

  private static Object operand(Random r, String field) {
    return switch (field) {
      case "n" -> r.nextInt(4) == 0 ? null : r.nextBoolean() ? (Object) (r.nextInt(7) - 2)
          : (Object) (double) (r.nextInt(7) - 2);
      case "x" -> r.nextInt(4) == 0 ? null : (r.nextInt(9) - 4) / 2.0;
      case "flag" -> r.nextInt(4) == 0 ? null : r.nextBoolean();
      case "status", "inner.s", "id" -> pick(r, STRINGS);
      default -> r.nextInt(6) == 0 ? pick(r, STRINGS) : pick(r, MIXED);
    };
  }

  private static Condition condition(Random r) {
    String field = FIELDS[r.nextInt(FIELDS.length - (r.nextInt(20) == 0 ? 0 : 2))];
    switch (r.nextInt(3)) {
      case 0:
        return Condition.exact(field, operand(r, field));
      case 1:
        List<Object> values = new ArrayList<>();
        int size = r.nextInt(4);
        for (int i = 0; i < size; i++) {
          values.add(operand(r, field));
        }
        return Condition.within(field, values);
      default:
        Object value = r.nextBoolean() ? pick(r, STRINGS) : pick(r, MIXED);
        return Condition.contains(field, value == null ? "a" : value);
    }
  }

  private static Query randomQuery(Random r) {
    Query.Builder b = Query.builder();
    int conditions = r.nextInt(4);
    List<String> used = new ArrayList<>();
    for (int i = 0; i < conditions; i++) {
      Condition c = condition(r);
      if (!used.contains(c.field())) {
        used.add(c.field());
        b.where(c);
      }
    }
    if (r.nextBoolean()) {
      b.or();
    }
    if (r.nextInt(3) == 0) {
      b.must(List.of(condition(r)));
    }
    switch (r.nextInt(4)) {
      case 0 -> b.sortAscending(FIELDS[r.nextInt(FIELDS.length - 2)]);
      case 1 -> b.sortDescending(FIELDS[r.nextInt(FIELDS.length - 2)]);
      default -> { }
    }
    if (r.nextBoolean()) {
      b.limit(r.nextInt(12));
    }
    if (r.nextBoolean()) {
      b.offset(r.nextInt(30));
    }
    return b.build();
  }

  /** Runs {@code work} on both stores; also compares their outcomes when they fail. */
  private void both(String partition, Function<Collection<Doc>, Object> work) {
    sql.execute(partition, tx -> work.apply(tx.collection("docs", Doc.class)));
    reference.execute(partition, tx -> work.apply(tx.collection("docs", Doc.class)));
  }

  private static Object outcome(CollectionStore store, String partition, Query query) {
    try {
      return store.read(partition, view -> view.collection("docs", Doc.class).query(query));
    } catch (RuntimeException e) {
      return e.getClass().getName();
    }
  }

  @Test
  void sqlAnswersEqualTheInMemoryEngine(Random random) throws Exception {
    int scale = Integer.getInteger("ledger.torture.scale", 1);
    String partition = "p";
    List<String> ids = new ArrayList<>();
    for (int batch = 0; batch < 8; batch++) {
      List<Doc> docs = new ArrayList<>();
      for (int i = 0; i < 25; i++) {
        String id = "d" + ids.size();
        ids.add(id);
        docs.add(randomDoc(random, id));
      }
      both(partition, c -> {
        c.insert(docs);
        return null;
      });
    }
    // Updates (whole and partial), deletes and re-inserts, so that ordinals have gaps and
    // documents lose fields.
    for (int i = 0; i < 40; i++) {
      String id = ids.get(random.nextInt(ids.size()));
      Doc doc = randomDoc(random, id);
      int op = random.nextInt(3);
      both(partition, c -> {
        switch (op) {
          case 0 -> c.delete(List.of(doc));
          case 1 -> c.upsert(List.of(doc), List.of("status", "inner", "mixed"));
          default -> c.upsert(List.of(doc), List.of("status", "n", "x", "flag", "inner",
              "tags", "mixed"));
        }
        return null;
      });
    }
    assertThat(rows(partition)).isEqualTo(sql.read(partition,
        v -> v.collection("docs", Doc.class).size()));
    int queries = 200 * scale;
    compare(random, partition, queries);
    long answered = answered(partition);
    // Most random queries are portable (scalar operands): the table answered them.
    assertThat(answered).isGreaterThan(queries / 2);
    // A patch committed without documents (as a plain ledger commit or an older writer
    // would) leaves the table behind the head: it is not read until the view rebuilds it.
    com.fasterxml.jackson.databind.node.ObjectNode patch = (com.fasterxml.jackson.databind
        .node.ObjectNode) new com.fasterxml.jackson.databind.ObjectMapper().readTree(
        "{\"c\":{\"docs\":{\"docs\":{\"[\\\"d1\\\"]\":{\"o\":1,\"d\":{\"id\":\"d1\","
        + "\"status\":\"raw\"}}}}}}");
    for (dev.ledger.core.spi.PatchLogSource store : List.<dev.ledger.core.spi.PatchLogSource>of(
        pg, memory)) {
      dev.ledger.core.spi.PatchLog log = store.patchLog(partition);
      long head = ((dev.ledger.core.LedgerStore) store).head(partition).orElseThrow()
          .revision();
      log.commitPatch(new dev.ledger.core.spi.PatchRequest(head, patch, 0, List.of(), null,
          null));
    }
    assertThat(sql.read(partition, v -> v.collection("docs", Doc.class).query(
        Query.builder().exact("status", "raw").build())).items())
        .extracting(Doc::id).containsExactly("d1");
    compare(random, partition, queries);
    assertThat(answered(partition)).isGreaterThan(answered + queries / 2);
    assertThat(servedBySql(partition)).isTrue();
  }

  private void compare(Random random, String partition, int queries) {
    for (int i = 0; i < queries; i++) {
      Query query = randomQuery(random);
      Object expected = outcome(reference, partition, query);
      Object actual = outcome(sql, partition, query);
      assertThat(actual).as("query %s: %s", i, query).isEqualTo(expected);
    }
  }

  private long answered(String partition) {
    return ((PostgresPatchLog) pg.patchLog(partition)).documentQueriesAnswered();
  }

  /** The rows of {@code partition} in the documents table. */
  private long rows(String partition) throws SQLException {
    try (Connection c = TestDatabase.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM " + schemaName
            + ".documents WHERE root_id = '" + partition + "'")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * Whether reads of {@code partition} are answered by the table: a row changed behind the
   * store's back shows in a query (and only there: the view still has the old document).
   */
  private boolean servedBySql(String partition) throws SQLException {
    sql.execute(partition, tx -> {
      tx.collection("docs", Doc.class).insert(List.of(new Doc("probe", "a", 1, null, null,
          null, null, null)));
      return null;
    });
    try (Connection c = TestDatabase.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.executeUpdate("UPDATE " + schemaName + ".documents SET body = jsonb_set(doc,"
          + " '{status}', '\"tampered\"')::text, doc = jsonb_set(doc, '{status}',"
          + " '\"tampered\"') WHERE root_id = '" + partition + "' AND key = '[\"probe\"]'");
    }
    QueryResult<Doc> found = sql.read(partition, v -> v.collection("docs", Doc.class)
        .query(Query.builder().exact("status", "tampered").build()));
    return found.items().size() == 1 && found.items().get(0).id().equals("probe");
  }
}
