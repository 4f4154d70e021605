package dev.ledger.testing.stores;

import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.memory.InMemoryLedgerStore;
import dev.ledger.registry.RegistryOptions;
import dev.ledger.registry.RunRegistry;
import dev.ledger.registry.collections.CollectionRunRegistry;
import dev.ledger.testing.RunRegistryContractTest;

/** The run registry contract in memory; a second registry object shares the store. */
class InMemoryRunRegistryConformanceTest extends RunRegistryContractTest {
  @Override
  protected LedgerStore openStore(LedgerOptions options) {
    return InMemoryLedgerStore.create(options);
  }

  @Override
  protected RunRegistry registry(LedgerStore on, RegistryOptions options) {
    return CollectionRunRegistry.on((InMemoryLedgerStore) on, options);
  }
}
