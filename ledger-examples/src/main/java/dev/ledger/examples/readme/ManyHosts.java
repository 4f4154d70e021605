package dev.ledger.examples.readme;

import dev.ledger.core.CommitResult;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.postgres.PostgresLedgerStore;
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
}
