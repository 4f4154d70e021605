package dev.ledger.postgres;

import dev.ledger.artifacts.ArtifactOptions;
import dev.ledger.artifacts.ArtifactStore;
import dev.ledger.testing.ArtifactStoreContractTest;
import dev.ledger.testing.base.MutableClock;

/**
 * The artifact store contract on a real PostgreSQL server: each store in a fresh schema, its
 * blobs in a fresh directory standing for the shared mount.
 */
class PostgresArtifactStoreConformanceTest extends ArtifactStoreContractTest {
  @Override
  protected ArtifactStore openStore(MutableClock clock) {
    return PostgresArtifactStore.open(TestDatabase.dataSource(), TestDatabase.freshSchema(),
        temp.resolve("shared"), ArtifactOptions.defaults().withClock(clock));
  }

  @Override
  protected ArtifactStore openReadOnly(ArtifactStore writable) {
    PostgresArtifactStore store = (PostgresArtifactStore) writable;
    return PostgresArtifactStore.openReadOnly(TestDatabase.dataSource(), store.schema(),
        store.directory().getParent());
  }
}
