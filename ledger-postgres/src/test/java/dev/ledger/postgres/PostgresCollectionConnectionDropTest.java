package dev.ledger.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.collections.CollectionStore;
import dev.ledger.collections.Schema;
import dev.ledger.collections.TransactionResult;
import dev.ledger.collections.patchlog.PatchLogCollectionStore;
import dev.ledger.core.LedgerOptions;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A collection transaction whose connection a proxy cuts while the client waits for the
 * answer: with a command id, the transaction loop retries it and it lands exactly once
 * (replayed if the server had committed, committed by the retry if not); without one, the
 * caller gets the retryable {@link DatabaseException} whose outcome is unknown.
 */
class PostgresCollectionConnectionDropTest {
  private static final Schema SCHEMA = Schema.builder()
      .keyValue("counters", String.class, Long.class).build();

  @Test
  void aTransactionWhoseAnswerWasLostIsReplayedUnderItsCommandId() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    String schema = TestDatabase.freshSchema();
    TransactionResult<Long> result = throughACut(schema, CuttingProxy.Cut.AFTER_COMMIT,
        db -> db.execute("p", "add-10", tx -> {
          runs.incrementAndGet();
          return tx.keyValue("counters", String.class, Long.class).inc("n", 10L);
        }));
    assertThat(result.replayed()).as("the server had committed: the retry replays").isTrue();
    assertThat(result.revision()).isEqualTo(2);
    assertThat(runs).as("the replay runs no callback").hasValue(1);
    assertThat(counter(schema)).contains(11L);
  }

  @Test
  void aTransactionCutBeforeTheServerCommittedIsCommittedByTheRetry() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    String schema = TestDatabase.freshSchema();
    TransactionResult<Long> result = throughACut(schema, CuttingProxy.Cut.BEFORE_COMMIT,
        db -> db.execute("p", "add-10", tx -> {
          runs.incrementAndGet();
          return tx.keyValue("counters", String.class, Long.class).inc("n", 10L);
        }));
    assertThat(result.replayed()).as("the server never committed: the retry commits")
        .isFalse();
    assertThat(result.value()).isEqualTo(11L);
    assertThat(runs).hasValue(2);
    assertThat(counter(schema)).contains(11L);
  }

  @Test
  void withoutACommandIdTheUnknownOutcomeReachesTheCaller() throws Exception {
    String schema = TestDatabase.freshSchema();
    assertThatThrownBy(() -> throughACut(schema, CuttingProxy.Cut.AFTER_COMMIT,
        db -> new TransactionResult<>(db.execute("p", tx ->
            tx.keyValue("counters", String.class, Long.class).inc("n", 10L)), 0, false)))
        .isInstanceOfSatisfying(DatabaseException.class, e -> {
          assertThat(e.outcomeUnknown()).isTrue();
          assertThat(e.retryable()).isTrue();
        });
    assertThat(counter(schema)).as("it had landed, once").contains(11L);
  }

  /** What runs on the collection store through the proxy. */
  private interface Work {
    TransactionResult<Long> run(CollectionStore db);
  }

  /**
   * Opens a store through a cutting proxy, commits n = 1 normally, arms the cut on the next
   * write statement and runs {@code work}.
   */
  private static TransactionResult<Long> throughACut(String schema, CuttingProxy.Cut cut,
      Work work) throws Exception {
    try (CuttingProxy proxy = new CuttingProxy(TestDatabase.server().getPort());
        PostgresLedgerStore store = PostgresLedgerStore.connect("jdbc:postgresql://127.0.0.1:"
            + proxy.port() + "/postgres?prepareThreshold=0", "postgres", null, schema,
            LedgerOptions.defaults())) {
      CollectionStore db = PatchLogCollectionStore.on(store, SCHEMA);
      db.execute("p", tx -> tx.keyValue("counters", String.class, Long.class).inc("n", 1L));
      proxy.arm(cut, "WITH head AS"); // the text of the patch commit's statement
      try {
        return work.run(db);
      } finally {
        assertThat(proxy.awaitCut(10)).as("the proxy cut the connection").isTrue();
      }
    }
  }

  /** The counter as a fresh process reads it, on a connection of its own. */
  private static Optional<Long> counter(String schema) {
    try (PostgresLedgerStore direct = PostgresLedgerStore.open(TestDatabase.dataSource(),
        schema, LedgerOptions.defaults())) {
      return PatchLogCollectionStore.on(direct, SCHEMA).read("p",
          v -> v.keyValue("counters", String.class, Long.class).get("n"));
    }
  }
}
