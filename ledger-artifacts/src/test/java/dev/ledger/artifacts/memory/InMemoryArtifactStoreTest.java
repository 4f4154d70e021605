package dev.ledger.artifacts.memory;

import dev.ledger.artifacts.ArtifactStore;
import dev.ledger.artifacts.ArtifactStoreContractTest;
import dev.ledger.artifacts.MutableClock;

class InMemoryArtifactStoreTest extends ArtifactStoreContractTest {
  @Override
  protected ArtifactStore openStore(MutableClock clock) {
    return new InMemoryArtifactStore(clock);
  }
}
