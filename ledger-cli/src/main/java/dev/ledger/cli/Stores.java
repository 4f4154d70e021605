package dev.ledger.cli;

import dev.ledger.artifacts.fs.FileArtifactStore;
import dev.ledger.core.fs.FileLedgerStore;
import java.nio.file.Path;

/**
 * How the commands open a store directory. Read commands open it read-only, so that they
 * create, lock and change nothing, on a directory another process writes and on a read-only
 * copy alike. Write commands first check, read-only, that the directory already is a store:
 * the writable {@code open} methods would create one, and a mistyped path must not become an
 * empty store.
 */
final class Stores {
  private Stores() {}

  /**
   * The ledger store in {@code dir}, read-only.
   *
   * @param dir the store directory
   * @return the store
   */
  static FileLedgerStore ledgersReadOnly(Path dir) {
    return FileLedgerStore.openReadOnly(dir);
  }

  /**
   * The existing ledger store in {@code dir}, writable.
   *
   * @param dir the store directory
   * @return the store
   */
  static FileLedgerStore ledgersWritable(Path dir) {
    FileLedgerStore.openReadOnly(dir).close(); // refuses a directory that is no store
    return FileLedgerStore.open(dir);
  }

  /**
   * The artifact store of {@code dir} ({@code dir/artifacts}), read-only.
   *
   * @param dir the store directory
   * @return the artifact store
   */
  static FileArtifactStore artifactsReadOnly(Path dir) {
    return FileArtifactStore.openReadOnly(dir);
  }

  /**
   * The existing artifact store of {@code dir}, writable.
   *
   * @param dir the store directory
   * @return the artifact store
   */
  static FileArtifactStore artifactsWritable(Path dir) {
    FileArtifactStore.openReadOnly(dir).close(); // refuses a directory without artifacts
    return FileArtifactStore.open(dir);
  }
}
