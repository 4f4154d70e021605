package dev.ledger.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.TextNode;
import dev.ledger.collections.CollectionStore;
import dev.ledger.collections.Query;
import dev.ledger.collections.Schema;
import dev.ledger.collections.patchlog.PatchLogCollectionStore;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.spi.DocumentQuery;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The documents table's expression indexes, and reads beside a writer on another connection.
 */
class PostgresDocumentIndexTest {
  /** A document with an indexed field. */
  record Item(String id, String kind, Integer value) {}

  private static final Schema SCHEMA = Schema.builder()
      .collection("items", Item.class, List.of("id"), List.of("kind"))
      .build();

  /**
   * A collection filled in a few large transactions is queried from its expression index
   * right away: the store runs ANALYZE after many rows (autovacuum is off for the table here,
   * so the statistics can only come from the store). Without statistics the planner may read
   * the whole collection through documents_order and filter each document.
   */
  @Test
  void afterManyRowsTheStoreAnalyzesAndAnIndexedExactIsAnIndexScan() throws Exception {
    String schema = TestDatabase.freshSchema();
    try (PostgresLedgerStore store = PostgresLedgerStore.open(TestDatabase.dataSource(),
        schema, LedgerOptions.defaults())) {
      CollectionStore collections = PatchLogCollectionStore.on(store, SCHEMA);
      // A second open of the same schema creates nothing twice.
      PatchLogCollectionStore.on(store, SCHEMA);
      try (Connection c = TestDatabase.dataSource().getConnection();
          Statement s = c.createStatement()) {
        s.execute("ALTER TABLE " + schema + ".documents SET (autovacuum_enabled = false)");
      }
      String index = "documents_" + com.google.common.hash.Hashing.sha256().hashString("kind",
          java.nio.charset.StandardCharsets.UTF_8).toString().substring(0, 24);
      insert(collections, 0, 10);
      assertThat(store.documentStatistics().awaitIdle(Duration.ofSeconds(30))).isTrue();
      assertThat(store.documentStatistics().analyses()).as("analyses after 10 rows")
          .isZero();
      assertThat(statisticsOf(schema, index)).as("statistics of %s after 10 rows", index)
          .isZero();
      for (int batch = 0; batch < 10; batch++) {
        insert(collections, batch * 500 + 10, 500);
      }
      assertThat(store.documentStatistics().awaitIdle(Duration.ofSeconds(30))).isTrue();
      assertThat(statisticsOf(schema, index)).as("statistics of %s", index).isPositive();
      assertThat(store.documentStatistics().analyses()).as("analyses after 5,010 rows")
          .isPositive();
      DocumentQuery query = new DocumentQuery("items", List.of(new DocumentQuery.Term(
          List.of("kind"), DocumentQuery.Operator.EQUALS, List.of(TextNode.valueOf("k7")))),
          false, List.of(), 0, -1);
      List<String> plan = ((PostgresPatchLog) store.patchLog("p")).explainDocuments(
          store.head("p").orElseThrow().revision(), query);
      assertThat(String.join("\n", plan)).as("plan").contains(index).containsPattern(
          "(Index|Bitmap Index) Scan");
      // and the store answers it from the table
      long before = ((PostgresPatchLog) store.patchLog("p")).documentQueriesAnswered();
      assertThat(collections.read("p", v -> v.collection("items", Item.class).query(
          Query.builder().exact("kind", "k7").build())).items()).extracting(Item::id)
          .containsExactly(ids(7, 11));
      assertThat(((PostgresPatchLog) store.patchLog("p")).documentQueriesAnswered())
          .isEqualTo(before + 1);
    }
  }

  private static void insert(CollectionStore collections, int first, int count) {
    collections.execute("p", tx -> {
      List<Item> items = new ArrayList<>();
      for (int i = first; i < first + count; i++) {
        items.add(new Item("i" + i, "k" + (i % 500), i));
      }
      tx.collection("items", Item.class).insert(items);
      return null;
    });
  }

  /** The rows of pg_stats on the expression of {@code index} (statistics exist or not). */
  private static int statisticsOf(String schema, String index) throws Exception {
    try (Connection c = TestDatabase.dataSource().getConnection();
        java.sql.PreparedStatement ps = c.prepareStatement(
            "SELECT count(*) FROM pg_stats WHERE schemaname = ? AND tablename = ?")) {
      ps.setString(1, schema);
      ps.setString(2, index);
      try (java.sql.ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  private static String[] ids(int first, int count) {
    String[] out = new String[count];
    for (int i = 0; i < count; i++) {
      out[i] = "i" + (first + 500 * i);
    }
    return out;
  }

  @Test
  void aReaderBesideAWriterOnAnotherConnectionSeesOneRevision() throws Exception {
    String schema = TestDatabase.freshSchema();
    try (PostgresLedgerStore readerStore = PostgresLedgerStore.open(TestDatabase.dataSource(),
            schema, LedgerOptions.defaults());
        PostgresLedgerStore writerStore = PostgresLedgerStore.connect(TestDatabase.jdbcUrl(),
            "postgres", null, schema, LedgerOptions.defaults())) {
      CollectionStore reader = PatchLogCollectionStore.on(readerStore, SCHEMA);
      CollectionStore writer = PatchLogCollectionStore.on(writerStore, SCHEMA);
      writer.execute("p", tx -> {
        tx.collection("items", Item.class).insert(List.of(new Item("count", "counter", 0)));
        return null;
      });
      AtomicBoolean stop = new AtomicBoolean();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread writes = new Thread(() -> {
        try {
          for (int i = 0; !stop.get() && i < 400; i++) {
            int n = i;
            writer.execute("p", tx -> {
              var items = tx.collection("items", Item.class);
              Item counter = items.get(dev.ledger.collections.Key.of("count")).orElseThrow();
              items.insert(List.of(new Item("i" + n, "item", n)));
              items.update(List.of(new Item("count", "counter", counter.value() + 1)));
              return null;
            });
            Thread.sleep(2);
          }
        } catch (Throwable e) {
          failure.set(e);
        }
      }, "writer");
      writes.start();
      int reads = 0;
      long before = ((PostgresPatchLog) readerStore.patchLog("p")).documentQueriesAnswered();
      while (writes.isAlive()) {
        long[] seen = reader.read("p", v -> {
          var items = v.collection("items", Item.class);
          long total = items.query(Query.builder().exact("kind", "item").limit(0).build())
              .total();
          Item counter = items.query(Query.builder().exact("kind", "counter").build())
              .items().get(0);
          return new long[] {total, counter.value()};
        });
        assertThat(seen[0]).as("items and the counter of one read").isEqualTo(seen[1]);
        reads++;
      }
      writes.join();
      assertThat(failure.get()).isNull();
      assertThat(reads).isPositive();
      long answered = ((PostgresPatchLog) readerStore.patchLog("p")).documentQueriesAnswered()
          - before;
      System.out.printf("%d reads beside the writer, %d queries answered as SQL%n", reads,
          answered);
      assertThat(answered).isPositive();
    }
  }
}
