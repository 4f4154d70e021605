package dev.ledger.postgres;

import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.testing.LedgerStoreContractTest;

/** The ledger store contract on a real PostgreSQL server, each store in a fresh schema. */
class PostgresLedgerStoreConformanceTest extends LedgerStoreContractTest {
  private String schema;

  @Override
  protected LedgerStore openStore(LedgerOptions options) {
    schema = TestDatabase.freshSchema();
    return PostgresLedgerStore.open(TestDatabase.dataSource(), schema, options);
  }

  @Override
  protected LedgerStore reopen(LedgerOptions options) {
    return PostgresLedgerStore.open(TestDatabase.dataSource(), schema, options);
  }

  @Override
  protected boolean persistent() {
    return true;
  }

  /** A commit holds the ledger's head row from its guarded write to COMMIT: hold that row. */
  @Override
  protected AutoCloseable holdWriterLock(LedgerStore store, String rootId) throws Exception {
    java.sql.Connection c = TestDatabase.dataSource().getConnection();
    c.setAutoCommit(false);
    try (java.sql.PreparedStatement ps = c.prepareStatement(
        "SELECT revision FROM " + schema + ".ledgers WHERE root_id = ? FOR UPDATE")) {
      ps.setString(1, rootId);
      ps.executeQuery().close();
    }
    return () -> {
      c.rollback();
      c.close();
    };
  }
}
