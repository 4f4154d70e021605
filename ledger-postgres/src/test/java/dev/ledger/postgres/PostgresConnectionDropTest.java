package dev.ledger.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A connection cut by a proxy while the client waits for the answer to its commit: the commit
 * fails with a retryable {@link DatabaseException} whose outcome is unknown, and its retry
 * under the same command id lands exactly once, whether the server had committed (the retry
 * replays) or not (the retry commits).
 */
class PostgresConnectionDropTest {
  /** A ledger state for these tests. */
  public record Counter(long value) {}

  @Test
  void aCommitWhoseAnswerWasLostIsReplayedByItsRetry() throws Exception {
    CommitResult retry = commitThroughACut(CuttingProxy.Cut.AFTER_COMMIT, true);
    assertThat(retry.replayed()).as("the server had committed: the retry replays").isTrue();
  }

  @Test
  void aCommitCutBeforeTheServerHeardItsCommitIsCommittedByItsRetry() throws Exception {
    CommitResult retry = commitThroughACut(CuttingProxy.Cut.BEFORE_COMMIT, true);
    assertThat(retry.replayed()).as("the server never committed: the retry commits").isFalse();
  }

  @Test
  void theFirstCommitOfALedgerIsRetriedAsSafely() throws Exception {
    CommitResult retry = commitThroughACut(CuttingProxy.Cut.AFTER_COMMIT, false);
    assertThat(retry.replayed()).isTrue();
  }

  /**
   * Commits once normally (if {@code second}), then commits {@code c-2} through a cut at
   * {@code cut}, checks the failure, retries, and checks that the ledger holds c-2 once.
   */
  private CommitResult commitThroughACut(CuttingProxy.Cut cut, boolean second)
      throws Exception {
    String schema = TestDatabase.freshSchema();
    try (CuttingProxy proxy = new CuttingProxy(TestDatabase.server().getPort());
        PostgresLedgerStore store = PostgresLedgerStore.connect("jdbc:postgresql://127.0.0.1:"
            + proxy.port() + "/postgres?prepareThreshold=0", "postgres", null, schema, LedgerOptions.defaults())) {
      Ledger<Counter> ledger = store.ledger("a", Counter.class);
      long expected = Ledger.NO_REVISION;
      if (second) {
        expected = ledger.commit(Ledger.NO_REVISION, new Counter(1),
            EventDraft.of("counted", Map.of("to", 1)).withCommandId("c-1")).revision();
      }
      long revision = expected;
      EventDraft draft = EventDraft.of("counted", Map.of("to", 2)).withCommandId("c-2");
      proxy.arm(cut, "WITH head AS"); // the text of the store's write statement
      assertThatThrownBy(() -> ledger.commit(revision, new Counter(2), draft))
          .isInstanceOfSatisfying(DatabaseException.class, e -> {
            assertThat(e.outcomeUnknown()).as("outcome unknown").isTrue();
            assertThat(e.retryable()).as("retryable").isTrue();
            assertThat(e.getMessage()).contains("ledger 'a'").contains("outcome unknown");
          });
      assertThat(proxy.awaitCut(10)).as("the proxy cut the connection").isTrue();

      CommitResult retry = ledger.commit(revision, new Counter(2), draft);
      long landed = second ? 2 : 1;
      assertThat(retry.revision()).isEqualTo(landed);
      assertThat(retry.events()).singleElement()
          .satisfies(e -> assertThat(e.payload().get("to").asInt()).isEqualTo(2));

      // Read back through a store on a connection of its own, not the proxy.
      try (PostgresLedgerStore direct = PostgresLedgerStore.open(TestDatabase.dataSource(),
          schema, LedgerOptions.defaults())) {
        Ledger<Counter> again = direct.ledger("a", Counter.class);
        assertThat(again.load().revision()).isEqualTo(landed);
        assertThat(again.load().state()).isEqualTo(new Counter(2));
        List<Event> events;
        try (Stream<Event> all = again.replay(Cursor.START)) {
          events = all.toList();
        }
        assertThat(events).extracting(e -> e.payload().get("to").asInt())
            .containsExactlyElementsOf(second ? List.of(1, 2) : List.of(2));
        assertThat(again.command("c-2")).hasValueSatisfying(r -> {
          assertThat(r.revision()).isEqualTo(landed);
          assertThat(r.replayed()).isTrue();
        });
      }
      return retry;
    }
  }
}
