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
}
