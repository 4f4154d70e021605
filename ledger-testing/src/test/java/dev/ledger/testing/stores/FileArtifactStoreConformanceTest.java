package dev.ledger.testing.stores;

import dev.ledger.artifacts.ArtifactOptions;
import dev.ledger.artifacts.ArtifactStore;
import dev.ledger.artifacts.fs.FileArtifactStore;
import dev.ledger.testing.ArtifactStoreContractTest;
import dev.ledger.testing.base.MutableClock;
import java.time.Duration;

/** The artifact contract on the real file system, in a fresh directory per test. */
class FileArtifactStoreConformanceTest extends ArtifactStoreContractTest {
  @Override
  protected ArtifactStore openStore(MutableClock clock) {
    return FileArtifactStore.open(temp.resolve("store-" + System.nanoTime()),
        ArtifactOptions.defaults().withClock(clock).withLockTimeout(Duration.ofSeconds(10)));
  }

  @Override
  protected ArtifactStore openReadOnly(ArtifactStore writable) {
    return FileArtifactStore.openReadOnly(
        ((FileArtifactStore) writable).directory().getParent());
  }
}
