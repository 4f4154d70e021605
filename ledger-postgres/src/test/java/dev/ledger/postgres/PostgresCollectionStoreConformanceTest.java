package dev.ledger.postgres;

import dev.ledger.collections.CollectionOptions;
import dev.ledger.collections.CollectionStore;
import dev.ledger.collections.Schema;
import dev.ledger.collections.patchlog.PatchLogCollectionStore;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.testing.CollectionStoreContractTest;

/**
 * The collection contract on a real PostgreSQL server, each store in a fresh schema; the
 * second store is another store on the same schema, as another host would open it.
 */
class PostgresCollectionStoreConformanceTest extends CollectionStoreContractTest {
  private String schema;

  @Override
  protected LedgerStore openStore(LedgerOptions options) {
    schema = TestDatabase.freshSchema();
    return PostgresLedgerStore.open(TestDatabase.dataSource(), schema, options);
  }

  @Override
  protected CollectionStore collections(LedgerStore on, Schema schema,
      CollectionOptions options) {
    return PatchLogCollectionStore.on((PostgresLedgerStore) on, schema, options);
  }

  @Override
  protected LedgerStore openSecond() {
    return PostgresLedgerStore.open(TestDatabase.dataSource(), schema, options());
  }
}
