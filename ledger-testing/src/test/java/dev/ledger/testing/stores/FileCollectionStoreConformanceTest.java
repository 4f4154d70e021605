package dev.ledger.testing.stores;

import dev.ledger.collections.CollectionOptions;
import dev.ledger.collections.CollectionStore;
import dev.ledger.collections.Schema;
import dev.ledger.collections.patchlog.PatchLogCollectionStore;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.testing.CollectionStoreContractTest;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.io.TempDir;

/** The collection contract on files; the second store is another store on the same directory. */
class FileCollectionStoreConformanceTest extends CollectionStoreContractTest {
  private static final AtomicInteger STORES = new AtomicInteger();

  @TempDir Path dir;

  @Override
  protected LedgerStore openStore(LedgerOptions options) {
    return FileLedgerStore.open(dir.resolve("store-" + STORES.incrementAndGet()), options);
  }

  @Override
  protected CollectionStore collections(LedgerStore on, Schema schema,
      CollectionOptions options) {
    return PatchLogCollectionStore.on((FileLedgerStore) on, schema, options);
  }

  @Override
  protected LedgerStore openSecond() {
    return FileLedgerStore.open(((FileLedgerStore) store).base(), options());
  }
}
