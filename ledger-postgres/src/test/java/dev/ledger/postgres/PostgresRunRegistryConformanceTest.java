package dev.ledger.postgres;

import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.registry.RegistryOptions;
import dev.ledger.registry.RunRegistry;
import dev.ledger.registry.collections.CollectionRunRegistry;
import dev.ledger.testing.RunRegistryContractTest;

/**
 * The run registry contract on a real PostgreSQL server, each store in a fresh schema; the
 * second store is another store on the same schema, as another host would open it.
 */
class PostgresRunRegistryConformanceTest extends RunRegistryContractTest {
  private String schema;

  @Override
  protected LedgerStore openStore(LedgerOptions options) {
    schema = TestDatabase.freshSchema();
    return PostgresLedgerStore.open(TestDatabase.dataSource(), schema, options);
  }

  @Override
  protected RunRegistry registry(LedgerStore on, RegistryOptions options) {
    return CollectionRunRegistry.on((PostgresLedgerStore) on, options);
  }

  @Override
  protected LedgerStore openSecond() {
    return PostgresLedgerStore.open(TestDatabase.dataSource(), schema, options());
  }
}
