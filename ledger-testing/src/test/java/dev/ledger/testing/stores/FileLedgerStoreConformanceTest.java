package dev.ledger.testing.stores;

import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.testing.LedgerStoreContractTest;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class FileLedgerStoreConformanceTest extends LedgerStoreContractTest {
  @TempDir
  Path dir;

  @Override
  protected LedgerStore openStore(LedgerOptions options) {
    return FileLedgerStore.open(dir.resolve("store-" + System.nanoTime()), options);
  }

  @Override
  protected LedgerStore reopen(LedgerOptions options) {
    return FileLedgerStore.open(((FileLedgerStore) store).base(), options);
  }

  @Override
  protected boolean persistent() {
    return true;
  }
}
