package dev.ledger.testing;

import dev.ledger.artifacts.ArtifactOptions;
import dev.ledger.artifacts.ArtifactStore;
import dev.ledger.artifacts.fs.FileArtifactStore;
import dev.ledger.artifacts.memory.InMemoryArtifactStore;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.core.memory.InMemoryLedgerStore;
import dev.ledger.testing.base.MutableClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The stores and the clock of one test (or one test class, for {@code @BeforeAll}), opened
 * on first request and closed by JUnit when the test ends, whatever its outcome. The file
 * stores share one base directory, {@code <temporary directory>/store}, as an application's
 * ledger and artifact stores may.
 */
final class TestStores implements AutoCloseable {
  private final MutableClock clock;
  private final LedgerOptions options;
  private final Map<StoreKind, LedgerStore> ledgerStores = new EnumMap<>(StoreKind.class);
  private final Map<StoreKind, ArtifactStore> artifactStores = new EnumMap<>(StoreKind.class);
  private final List<AutoCloseable> opened = new ArrayList<>();
  private Path directory;

  TestStores(MutableClock clock, LedgerOptions options) {
    this.clock = clock;
    this.options = options;
  }

  MutableClock clock() {
    return clock;
  }

  synchronized LedgerStore ledgerStore(StoreKind kind) {
    return ledgerStores.computeIfAbsent(kind, k -> opened(k == StoreKind.FILE
        ? FileLedgerStore.open(base(), options)
        : InMemoryLedgerStore.create(options)));
  }

  synchronized ArtifactStore artifactStore(StoreKind kind) {
    // The artifact store takes what it shares with the ledger options: durability, lock
    // wait and the test's clock.
    ArtifactOptions artifactOptions = new ArtifactOptions(options.durability(),
        options.lockTimeout(), clock);
    return artifactStores.computeIfAbsent(kind, k -> opened(k == StoreKind.FILE
        ? FileArtifactStore.open(base(), artifactOptions)
        : InMemoryArtifactStore.create(artifactOptions)));
  }

  private <T extends AutoCloseable> T opened(T store) {
    opened.add(store);
    return store;
  }

  private Path base() {
    if (directory == null) {
      try {
        directory = Files.createTempDirectory("ledger-test-");
      } catch (IOException e) {
        throw new UncheckedIOException("creating a temporary directory for the test's stores",
            e);
      }
    }
    return directory.resolve("store");
  }

  /**
   * Closes every store, newest first, then deletes the temporary directory. Throws the first
   * failure with the others suppressed, after trying everything.
   */
  @Override
  public synchronized void close() throws Exception {
    Exception failure = null;
    for (int i = opened.size() - 1; i >= 0; i--) {
      try {
        opened.get(i).close();
      } catch (Exception e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    opened.clear();
    if (directory != null) {
      try (Stream<Path> all = Files.walk(directory)) {
        for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      } catch (IOException e) {
        IOException deleting = new IOException("deleting the test's store directory "
            + directory, e);
        if (failure == null) {
          failure = deleting;
        } else {
          failure.addSuppressed(deleting);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
