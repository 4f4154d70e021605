package dev.ledger.testing.stores;

import dev.ledger.collections.CollectionOptions;
import dev.ledger.collections.CollectionStore;
import dev.ledger.collections.Schema;
import dev.ledger.collections.patchlog.PatchLogCollectionStore;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.memory.InMemoryLedgerStore;
import dev.ledger.testing.CollectionStoreContractTest;

class InMemoryCollectionStoreConformanceTest extends CollectionStoreContractTest {
  @Override
  protected LedgerStore openStore(LedgerOptions options) {
    return InMemoryLedgerStore.create(options);
  }

  @Override
  protected CollectionStore collections(LedgerStore on, Schema schema,
      CollectionOptions options) {
    return PatchLogCollectionStore.on((InMemoryLedgerStore) on, schema, options);
  }
}
