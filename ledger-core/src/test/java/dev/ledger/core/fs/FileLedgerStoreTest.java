package dev.ledger.core.fs;

import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.LedgerStoreContractTest;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class FileLedgerStoreTest extends LedgerStoreContractTest {
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
