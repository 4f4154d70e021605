package dev.ledger.testing.stores;

import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.memory.InMemoryLedgerStore;
import dev.ledger.testing.LedgerStoreContractTest;

class InMemoryLedgerStoreConformanceTest extends LedgerStoreContractTest {
  @Override
  protected LedgerStore openStore(LedgerOptions options) {
    return InMemoryLedgerStore.create(options);
  }
}
