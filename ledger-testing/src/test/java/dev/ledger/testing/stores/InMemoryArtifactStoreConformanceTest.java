package dev.ledger.testing.stores;

import dev.ledger.artifacts.ArtifactStore;
import dev.ledger.artifacts.memory.InMemoryArtifactStore;
import dev.ledger.testing.ArtifactStoreContractTest;
import dev.ledger.testing.base.MutableClock;

class InMemoryArtifactStoreConformanceTest extends ArtifactStoreContractTest {
  @Override
  protected ArtifactStore openStore(MutableClock clock) {
    return new InMemoryArtifactStore(clock);
  }
}
