package dev.ledger.core.memory;

import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.LedgerStoreContractTest;

class InMemoryLedgerStoreTest extends LedgerStoreContractTest {
  @Override
  protected LedgerStore openStore(LedgerOptions options) {
    return InMemoryLedgerStore.create(options);
  }
}
