package dev.ledger.examples.readme;

import dev.ledger.collections.CollectionStore;
import dev.ledger.collections.Schema;
import dev.ledger.collections.TransactionResult;
import dev.ledger.collections.patchlog.PatchLogCollectionStore;
import dev.ledger.core.CommitResult;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.postgres.PostgresLedgerStore;
import java.util.List;
import java.util.Map;

/** The README's PostgreSQL snippet, compiled here and run by its test. */
public final class ManyHosts {
  /**
   * A plain counter state.
   *
   * @param value the count
   */
  public record Count(int value) {}

  private ManyHosts() {}

  /**
   * Commits the first count of ledger {@code run-1} on the database {@code jdbcUrl} names,
   * once: run again, the command id replays the first result.
   *
   * @param jdbcUrl a PostgreSQL JDBC URL
   * @param user the database user
   * @param password the password, or null
   */
  public static void countOnce(String jdbcUrl, String user, String password) {
    // README:begin postgres
    // Every worker, on any host, opens the same database: the store creates its tables.
    try (LedgerStore store = PostgresLedgerStore.connect(jdbcUrl, user, password, "ledger",
        LedgerOptions.defaults())) { // its own connection pool, closed with the store
      Ledger<Count> ledger = store.ledger("run-1", Count.class);
      CommitResult result = ledger.commit(Ledger.NO_REVISION, new Count(1),
          EventDraft.of("counted", Map.of("to", 1)).withCommandId("count-1"));
      System.out.println("revision " + result.revision()
          + (result.replayed() ? " (replayed)" : ""));
    }
    // README:end
  }

  /**
   * A rollout document for the collections snippet.
   *
   * @param rolloutId its key
   * @param status its status, indexed
   */
  public record Rollout(String rolloutId, String status) {}

  /**
   * Queues rollout {@code r-1} in partition {@code run-1} on the database {@code jdbcUrl}
   * names, then claims it under the command id {@code claim-1}: run again, the queuing
   * transaction runs again (it has no command id) and the claim is replayed.
   *
   * @param jdbcUrl a PostgreSQL JDBC URL
   * @param user the database user
   * @param password the password, or null
   */
  public static void claimOnce(String jdbcUrl, String user, String password) {
    // README:begin postgres-collections
    Schema schema = Schema.builder()
        .collection("rollouts", Rollout.class, List.of("rolloutId"), List.of("status"))
        .queue("pending", String.class)
        .build();
    try (PostgresLedgerStore store = PostgresLedgerStore.connect(jdbcUrl, user, password,
        "ledger", LedgerOptions.defaults())) {
      // The same factory as on files: each transaction is one PostgreSQL transaction.
      CollectionStore collections = PatchLogCollectionStore.on(store, schema);
      collections.execute("run-1", tx -> {
        tx.collection("rollouts", Rollout.class).upsert(List.of(new Rollout("r-1", "queuing")));
        tx.queue("pending", String.class).enqueue(List.of("r-1"));
        return null;
      });
      // Any host claims; the command id makes a retry after an unknown outcome land once.
      TransactionResult<String> claim = collections.execute("run-1", "claim-1", tx -> {
        String id = tx.queue("pending", String.class).dequeue(1).get(0);
        tx.collection("rollouts", Rollout.class).update(List.of(new Rollout(id, "running")));
        return id;
      });
      System.out.println(claim.replayed() ? "claim replayed at revision " + claim.revision()
          : "claimed " + claim.value() + " at revision " + claim.revision());
    }
    // README:end
  }
}
