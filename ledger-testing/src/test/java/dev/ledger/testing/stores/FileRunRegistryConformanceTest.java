package dev.ledger.testing.stores;

import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.registry.RegistryOptions;
import dev.ledger.registry.RunRegistry;
import dev.ledger.registry.collections.CollectionRunRegistry;
import dev.ledger.testing.RunRegistryContractTest;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The run registry contract on files; the second store is another store on the same directory. */
class FileRunRegistryConformanceTest extends RunRegistryContractTest {
  @TempDir Path dir;

  @Override
  protected LedgerStore openStore(LedgerOptions options) {
    return FileLedgerStore.open(dir.resolve("store"), options);
  }

  @Override
  protected RunRegistry registry(LedgerStore on, RegistryOptions options) {
    return CollectionRunRegistry.on((FileLedgerStore) on, options);
  }

  @Override
  protected LedgerStore openSecond() {
    return FileLedgerStore.open(((FileLedgerStore) store).base(), options());
  }
}
