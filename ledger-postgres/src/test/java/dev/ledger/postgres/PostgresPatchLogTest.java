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
import dev.ledger.core.CommandConflictException;
import dev.ledger.core.CommitResult;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.spi.LoggedCommit;
import dev.ledger.core.spi.PatchLog;
import dev.ledger.core.spi.PatchRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The patch log on PostgreSQL beyond the collection contract: {@code Ledger} readers of a
 * patch-log ledger, checkpoints, command replay and conflicts, and serialization failures
 * that the collection store's transaction loop re-runs.
 */
class PostgresPatchLogTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration DEADLINE = Duration.ofSeconds(20);

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text);
  }

  private static PatchRequest patch(long expected, String patch, String command)
      throws Exception {
    return new PatchRequest(expected, json(patch), 0,
        List.of(new EventDraft("patched", json("{\"at\":" + (expected + 1) + "}"), null, null)),
        command == null ? null : dev.ledger.core.spi.CommitRequest.publicCommandId(command),
        command == null ? null : "digest-" + command);
  }

  @Test
  void ledgerReadersSeePatchCommitsFoldedOntoTheCheckpoint() throws Exception {
    try (PostgresLedgerStore store = PostgresLedgerStore.open(TestDatabase.dataSource(),
        TestDatabase.freshSchema(), LedgerOptions.defaults())) {
      PatchLog log = store.patchLog("p");
      Ledger<JsonNode> ledger = store.ledger("p", JsonNode.class);
      assertThat(log.checkpoint()).isEmpty();
      log.commitPatch(patch(0, "{\"a\":1}", null));
      log.commitPatch(patch(1, "{\"b\":{\"x\":2}}", null));
      assertThat(log.checkpoint()).as("no checkpoint before the first one").isEmpty();
      assertThat(ledger.load().revision()).isEqualTo(2);
      assertThat(ledger.load().state()).isEqualTo(json("{\"a\":1,\"b\":{\"x\":2}}"));
      assertThat(log.journalBytesSinceCheckpoint()).isPositive();

      assertThat(log.checkpoint(1, json("{\"a\":1}"), 0)).as("not the newest").isFalse();
      assertThat(log.checkpoint(2, json("{\"a\":1,\"b\":{\"x\":2}}"), 0)).isTrue();
      assertThat(log.journalBytesSinceCheckpoint()).isZero();
      log.commitPatch(patch(2, "{\"a\":null,\"b\":{\"y\":3}}", null));
      assertThat(log.checkpoint().orElseThrow().revision()).isEqualTo(2);
      assertThat(log.checkpoint().orElseThrow().state())
          .isEqualTo(json("{\"a\":1,\"b\":{\"x\":2}}"));
      assertThat(ledger.load().state()).isEqualTo(json("{\"b\":{\"x\":2,\"y\":3}}"));

      // A Ledger commit on top diffs against the folded state and writes the head whole.
      CommitResult whole = ledger.commit(3, json("{\"c\":4}"));
      assertThat(whole.revision()).isEqualTo(4);
      assertThat(log.checkpoint().orElseThrow().revision()).isEqualTo(4);
      log.commitPatch(patch(4, "{\"d\":5}", null));
      assertThat(ledger.load().state()).isEqualTo(json("{\"c\":4,\"d\":5}"));
      assertThat(ledger.load().revision()).isEqualTo(5);

      List<LoggedCommit> commits;
      try (Stream<LoggedCommit> all = log.commitsAfter(0)) {
        commits = all.toList();
      }
      assertThat(commits).extracting(LoggedCommit::revision).containsExactly(1L, 2L, 3L, 4L, 5L);
      assertThat(commits.get(2).patch()).isEqualTo(json("{\"a\":null,\"b\":{\"y\":3}}"));
      assertThat(commits.get(4).events()).hasSize(1); // revision 4 (a Ledger commit) had none
      assertThat(commits.get(4).events().get(0).sequence()).isEqualTo(4);
      try (Stream<LoggedCommit> after = log.commitsAfter(5)) {
        assertThat(after).isEmpty();
      }
    }
  }

  @Test
  void commandsReplayConflictAndRefuseBatches() throws Exception {
    try (PostgresLedgerStore store = PostgresLedgerStore.open(TestDatabase.dataSource(),
        TestDatabase.freshSchema(), LedgerOptions.defaults())) {
      PatchLog log = store.patchLog("p");
      CommitResult first = log.commitPatch(patch(0, "{\"a\":1}", "one"));
      assertThat(first.replayed()).isFalse();
      CommitResult again = log.commitPatch(patch(0, "{\"a\":1}", "one"));
      assertThat(again.replayed()).isTrue();
      assertThat(again.revision()).isEqualTo(1);
      assertThat(again.events()).isEqualTo(first.events());

      PatchRequest otherDigest = new PatchRequest(1, json("{\"a\":2}"), 0, List.of(),
          dev.ledger.core.spi.CommitRequest.publicCommandId("one"), "another digest");
      assertThatThrownBy(() -> log.commitPatch(otherDigest))
          .isInstanceOf(CommandConflictException.class);
      assertThatThrownBy(() -> log.commitPatch(patch(0, "{\"a\":3}", null)))
          .isInstanceOf(RevisionConflictException.class);
      assertThatThrownBy(() -> log.commitPatches(List.of(patch(1, "{\"b\":1}", "two"),
          patch(2, "{\"b\":2}", "one"))))
          .as("a batch with a recorded command").isInstanceOf(CommandConflictException.class);
      assertThat(store.head("p").orElseThrow().revision()).as("the batch wrote nothing")
          .isEqualTo(1);

      List<CommitResult> batch = log.commitPatches(List.of(patch(1, "{\"b\":1}", "two"),
          patch(2, "{\"b\":2}", "three")));
      assertThat(batch).extracting(CommitResult::revision).containsExactly(2L, 3L);
      assertThat(store.ledger("p", JsonNode.class).load().state())
          .isEqualTo(json("{\"a\":1,\"b\":2}"));
      assertThat(store.head("p").orElseThrow().events()).isEqualTo(3);
    }
  }

  @Test
  void aSerializationFailureIsRetryableAndTheTransactionLoopRunsTheCallbackAgain()
      throws Exception {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(TestDatabase.jdbcUrl());
    config.setUsername("postgres");
    config.setMaximumPoolSize(4);
    config.setPoolName("serializable pool");
    config.setTransactionIsolation("TRANSACTION_SERIALIZABLE");
    String schema = TestDatabase.freshSchema();
    try (HikariDataSource serializable = new HikariDataSource(config);
        PostgresLedgerStore store = PostgresLedgerStore.open(serializable, schema,
            LedgerOptions.defaults())) {
      Schema collections = Schema.builder()
          .keyValue("counters", String.class, Long.class).build();
      PatchLogCollectionStore db = PatchLogCollectionStore.on(store, collections,
          CollectionOptions.defaults());
      db.execute("p", tx -> tx.keyValue("counters", String.class, Long.class).inc("n", 1L));

      // Directly: a commit that waited for a concurrent update of the head row fails with
      // SQLSTATE 40001 under SERIALIZABLE, retryable, and writes nothing.
      PatchLog log = store.patchLog("p");
      try (Connection holder = holdHeadRow(schema, "p")) {
        CompletableFuture<CommitResult> blocked = CompletableFuture.supplyAsync(() -> {
          try {
            return log.commitPatch(patch(1, "{\"x\":1}", null));
          } catch (Exception e) {
            throw new java.util.concurrent.CompletionException(e);
          }
        });
        awaitLockWaiter(schema);
        holder.commit();
        assertThatThrownBy(() -> blocked.get(DEADLINE.toSeconds(), TimeUnit.SECONDS))
            .cause().isInstanceOfSatisfying(DatabaseException.class, e -> {
              assertThat(e.sqlState()).isEqualTo("40001");
              assertThat(e.retryable()).isTrue();
              assertThat(e.outcomeUnknown()).isFalse();
            });
      }
      assertThat(store.head("p").orElseThrow().revision()).isEqualTo(1);

      // Through the collection store: the loop re-runs the callback, which then commits.
      AtomicInteger runs = new AtomicInteger();
      try (Connection holder = holdHeadRow(schema, "p")) {
        CompletableFuture<TransactionResult<Long>> tx = CompletableFuture.supplyAsync(() ->
            db.execute("p", "inc-once", t -> {
              runs.incrementAndGet();
              return t.keyValue("counters", String.class, Long.class).inc("n", 10L);
            }));
        awaitLockWaiter(schema);
        holder.commit();
        TransactionResult<Long> result = tx.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        assertThat(result.replayed()).isFalse();
        assertThat(result.value()).isEqualTo(11L);
        assertThat(result.revision()).isEqualTo(2);
      }
      assertThat(runs).as("callback runs: the first one's commit failed with 40001").hasValue(2);
      java.util.Optional<Long> n = db.read("p",
          v -> v.keyValue("counters", String.class, Long.class).get("n"));
      assertThat(n).contains(11L);
    }
  }

  /** Updates the head row of {@code root} in an open transaction of a read-committed connection. */
  private static Connection holdHeadRow(String schema, String root) throws Exception {
    Connection c = TestDatabase.dataSource().getConnection();
    c.setAutoCommit(false);
    try (PreparedStatement ps = c.prepareStatement("UPDATE " + schema
        + ".ledgers SET updated_at = updated_at WHERE root_id = ?")) {
      ps.setString(1, root);
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }
    return c;
  }

  /** Waits until a statement on the schema's ledgers table waits for a lock. */
  private static void awaitLockWaiter(String schema) throws Exception {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    try (Connection c = TestDatabase.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM pg_stat_activity"
            + " WHERE wait_event_type = 'Lock' AND query LIKE ?")) {
      ps.setString(1, "%" + schema + ".ledgers%");
      while (true) {
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          if (rs.getLong(1) > 0) {
            return;
          }
        }
        assertThat(System.nanoTime()).as("a commit waiting for the head row")
            .isLessThan(deadline);
        java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
      }
    }
  }
}
