package dev.ledger.testing.stores;

import dev.ledger.artifacts.ArtifactOptions;
import dev.ledger.artifacts.ArtifactStore;
import dev.ledger.artifacts.memory.InMemoryArtifactStore;
import dev.ledger.testing.ArtifactStoreContractTest;
import dev.ledger.testing.base.MutableClock;

/** The artifact contract in memory; read-only stores are read-only views. */
class InMemoryArtifactStoreConformanceTest extends ArtifactStoreContractTest {
  @Override
  protected ArtifactStore openStore(MutableClock clock) {
    return InMemoryArtifactStore.create(ArtifactOptions.defaults().withClock(clock));
  }

  @Override
  protected ArtifactStore openReadOnly(ArtifactStore writable) {
    return ((InMemoryArtifactStore) writable).readOnlyView();
  }
}
