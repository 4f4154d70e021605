package dev.ledger.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.ledger.collections.CollectionOptions;
import dev.ledger.collections.Schema;
import dev.ledger.collections.TransactionResult;
import dev.ledger.collections.patchlog.PatchLogCollectionStore;
import dev.ledger.core.EventDraft;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.spi.LoggedCommit;
import dev.ledger.core.spi.PatchLog;
import dev.ledger.core.spi.PatchRequest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A ledger deleted and built again to the same revision by another store (another pool, as
 * another host would be) is not the ledger a patch log's caller read: a commit or checkpoint
 * built on the old one is refused with a revision conflict and changes nothing, and the
 * collection store's transaction opens its view afresh and runs on the new ledger.
 */
class PostgresPatchLogGenerationTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static PatchRequest patch(long expected, String patch) throws Exception {
    return new PatchRequest(expected, JSON.readTree(patch), 0,
        List.of(new EventDraft("patched", JSON.readTree("{\"at\":" + (expected + 1) + "}"),
            null, null)), null, null);
  }

  private static HikariDataSource secondPool() {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(TestDatabase.jdbcUrl());
    config.setUsername("postgres");
    config.setMaximumPoolSize(2);
    config.setPoolName("second host");
    return new HikariDataSource(config);
  }

  @Test
  void aStaleWriterOfADeletedAndRebuiltLedgerIsRefusedAndChangesNothing() throws Exception {
    String schema = TestDatabase.freshSchema();
    try (HikariDataSource other = secondPool();
        PostgresLedgerStore here = PostgresLedgerStore.open(TestDatabase.dataSource(), schema,
            LedgerOptions.defaults());
        PostgresLedgerStore there = PostgresLedgerStore.open(other, schema,
            LedgerOptions.defaults())) {
      PatchLog stale = here.patchLog("p");
      stale.commitPatch(patch(0, "{\"a\":1}"));
      stale.commitPatch(patch(1, "{\"b\":2}"));
      stale.commitPatch(patch(2, "{\"c\":3}"));

      assertThat(there.delete("p")).isTrue();
      PatchLog rebuilt = there.patchLog("p");
      rebuilt.commitPatch(patch(0, "{\"x\":1}"));
      rebuilt.commitPatch(patch(1, "{\"y\":2}"));
      rebuilt.commitPatch(patch(2, "{\"z\":3}"));
      List<String> before = rows(schema);

      assertThatThrownBy(() -> stale.commitPatch(patch(3, "{\"d\":4}")))
          .isInstanceOfSatisfying(RevisionConflictException.class, e -> {
            assertThat(e.expected()).isEqualTo(3);
            assertThat(e.actual()).isEqualTo(3);
          });
      assertThatThrownBy(() -> stale.commitPatches(List.of(patch(3, "{\"d\":4}"),
          patch(4, "{\"e\":5}")))).isInstanceOf(RevisionConflictException.class);
      assertThat(stale.checkpoint(3, JSON.readTree("{\"a\":1,\"b\":2,\"c\":3}"), 0))
          .as("a checkpoint folded from the deleted ledger's commits").isFalse();
      assertThatThrownBy(() -> {
        try (Stream<LoggedCommit> commits = stale.commitsAfter(2)) {
          commits.forEach(c -> { });
        }
      }).as("catching up a view of the deleted ledger")
          .isInstanceOf(RevisionConflictException.class);
      assertThat(rows(schema)).as("nothing changed").isEqualTo(before);
      assertThat(here.ledger("p", JsonNode.class).load().state())
          .isEqualTo(JSON.readTree("{\"x\":1,\"y\":2,\"z\":3}"));

      // Read from its start, the new ledger is the one the log writes to.
      Optional<?> none = stale.checkpoint();
      assertThat(none).isEmpty();
      try (Stream<LoggedCommit> commits = stale.commitsAfter(0)) {
        assertThat(commits).hasSize(3);
      }
      assertThat(stale.commitPatch(patch(3, "{\"d\":4}")).revision()).isEqualTo(4);
      assertThat(there.ledger("p", JsonNode.class).load().state())
          .isEqualTo(JSON.readTree("{\"x\":1,\"y\":2,\"z\":3,\"d\":4}"));
    }
  }

  @Test
  void aDeletedLedgerRefusesTheStaleWriterAsOnFiles() throws Exception {
    String schema = TestDatabase.freshSchema();
    try (HikariDataSource other = secondPool();
        PostgresLedgerStore here = PostgresLedgerStore.open(TestDatabase.dataSource(), schema,
            LedgerOptions.defaults());
        PostgresLedgerStore there = PostgresLedgerStore.open(other, schema,
            LedgerOptions.defaults())) {
      PatchLog stale = here.patchLog("p");
      stale.commitPatch(patch(0, "{\"a\":1}"));
      stale.commitPatch(patch(1, "{\"b\":2}"));
      assertThat(there.delete("p")).isTrue();
      assertThatThrownBy(() -> stale.commitPatch(patch(2, "{\"c\":3}")))
          .isInstanceOfSatisfying(RevisionConflictException.class,
              e -> assertThat(e.actual()).isZero());
      assertThat(here.exists("p")).isFalse();
      assertThat(rows(schema)).isEmpty();
    }
  }

  @Test
  void aTransactionOnAViewOfTheDeletedLedgerRunsAgainOnTheNewOne() throws Exception {
    String schema = TestDatabase.freshSchema();
    Schema collections = Schema.builder().keyValue("kv", String.class, String.class).build();
    try (HikariDataSource other = secondPool();
        PostgresLedgerStore here = PostgresLedgerStore.open(TestDatabase.dataSource(), schema,
            LedgerOptions.defaults());
        PostgresLedgerStore there = PostgresLedgerStore.open(other, schema,
            LedgerOptions.defaults())) {
      PatchLogCollectionStore staleDb = PatchLogCollectionStore.on(here, collections,
          CollectionOptions.defaults());
      PatchLogCollectionStore otherDb = PatchLogCollectionStore.on(there, collections,
          CollectionOptions.defaults());
      for (String v : List.of("1", "2")) {
        staleDb.execute("p", tx -> {
          tx.keyValue("kv", String.class, String.class).set("old-" + v, v);
          return null;
        });
      }
      assertThat(there.delete("p")).isTrue();
      for (String v : List.of("1", "2")) {
        otherDb.execute("p", tx -> {
          tx.keyValue("kv", String.class, String.class).set("new-" + v, v);
          return null;
        });
      }
      TransactionResult<Optional<String>> result = staleDb.execute("p", "after", tx -> {
        tx.keyValue("kv", String.class, String.class).set("after", "3");
        return tx.keyValue("kv", String.class, String.class).get("old-1");
      });
      assertThat(result.value()).as("the callback that committed saw the new ledger")
          .isEmpty();
      assertThat(result.revision()).isEqualTo(3);
      JsonNode state = there.ledger("p", JsonNode.class).load().state();
      assertThat(state.toString()).contains("new-1", "new-2", "after")
          .doesNotContain("old-1");
      Optional<String> read = staleDb.read("p",
          v -> v.keyValue("kv", String.class, String.class).get("new-2"));
      assertThat(read).contains("2");
    }
  }

  /** Every row of the schema's four ledger tables, as text, in a fixed order. */
  private static List<String> rows(String schema) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = TestDatabase.dataSource().getConnection();
        Statement s = c.createStatement()) {
      for (String table : List.of("ledgers", "commits", "events", "commands")) {
        try (ResultSet rs = s.executeQuery("SELECT * FROM " + schema + "." + table
            + " ORDER BY 1, 2")) {
          ResultSetMetaData meta = rs.getMetaData();
          while (rs.next()) {
            StringBuilder row = new StringBuilder(table);
            for (int i = 1; i <= meta.getColumnCount(); i++) {
              Object value = rs.getObject(i);
              row.append('|').append(value instanceof byte[] b ? new String(b,
                  java.nio.charset.StandardCharsets.UTF_8) : value);
            }
            out.add(row.toString());
          }
        }
      }
    }
    return out;
  }
}
