package dev.ledger.core.fs;

import dev.ledger.core.LedgerException;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.VerifyReport;
import dev.ledger.core.internal.io.Identifiers;
import dev.ledger.core.internal.io.SafeFiles;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Builds the archive of one ledger: a complete store holding only it, published at the
 * target by one rename. The source is then removed by the caller (a delete through the
 * trash), under the same writer lock that was held while the archive was built.
 *
 * <pre>
 * &lt;target's parent&gt;/
 *   .&lt;target name&gt;.&lt;pid&gt;.&lt;n&gt;.archive/     built here, in the target's parent, so that
 *     store.json                              the publishing rename never crosses a file
 *     ledgers/&lt;root dir&gt;/                     system ({@link LedgerCopy}; no lock file)
 *   &lt;target&gt;/                                 after: rename, force the parent (commit point)
 * </pre>
 * The copy is always a copy, also when the target is on the store's file system: a rename
 * of the ledger's directory out of the store would leave, after a crash between it and the
 * publishing rename, a ledger in neither place. Before it is published the copy is forced
 * (with {@code SYNC} durability) and verified as a store of its own: it must hold exactly the
 * ledger's records with no damage, else nothing is published and the source stays. A crash
 * while building leaves the hidden temp directory in the target's parent (never a store at
 * the target; remove it by hand) and the source whole; a crash after publishing and before
 * the source is removed leaves the ledger in both places, the archive complete.
 */
final class LedgerArchive {
  private LedgerArchive() {}

  /**
   * Builds and publishes the archive of {@code root} (directory {@code dir}) at
   * {@code target}, under the ledger's writer lock (held by the caller).
   *
   * @return the revision archived
   */
  static long build(String root, Path dir, Path marker, Path target, StoreLimits limits,
      LedgerOptions options) throws IOException {
    boolean sync = options.durability() == dev.ledger.core.Durability.SYNC;
    refuseExisting(root, target);
    SafeFiles.createDirectories(target.getParent(), sync);
    Path temp = SafeFiles.uniqueSibling(target, ".archive");
    try {
      Files.createDirectory(temp, SafeFiles.privateDirectory(temp));
      Path ledgers = temp.resolve("ledgers");
      Files.createDirectory(ledgers, SafeFiles.privateDirectory(ledgers));
      LedgerCopy.copyFile(marker, temp.resolve(StoreMarker.FILE), -1, sync);
      long revision = LedgerCopy.copy(root, dir,
          ledgers.resolve(Identifiers.toDirectoryName("root id", root)), limits, sync);
      if (sync) {
        SafeFiles.forceDirectory(ledgers);
        SafeFiles.forceDirectory(temp);
      }
      check(root, temp, revision, options);
      refuseExisting(root, target);
      try {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
      } catch (FileAlreadyExistsException | DirectoryNotEmptyException e) {
        throw new LedgerIOException(target, "Cannot archive ledger '" + root + "' to " + target
            + ": it appeared while the archive was built", e);
      }
      if (sync) {
        SafeFiles.forceDirectory(target.getParent());
      }
      return revision;
    } catch (IOException | RuntimeException e) {
      try {
        LedgerTrash.removeTree(temp);
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  private static void refuseExisting(String root, Path target) {
    if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
      throw new LedgerIOException(target, "Cannot archive ledger '" + root + "' to " + target
          + ": it exists; an archive is a new store directory", null);
    }
  }

  /** Verifies the built store: one ledger, all of its records, no damage. */
  private static void check(String root, Path store, long revision, LedgerOptions options)
      throws IOException {
    Path marker = store.resolve(StoreMarker.FILE);
    StoreLimits limits = new StoreLimits(marker, options, StoreMarker.read(marker));
    VerifyReport report = new StoreVerifier(store, limits).verify(null, progress -> { });
    if (!report.clean() || report.ledgers() != 1 || report.records() != revision) {
      throw new LedgerException("The archive of ledger '" + root + "' built in " + store
          + " did not verify (expected 1 ledger, " + revision + " records; found "
          + report.ledgers() + " ledgers, " + report.records() + " records, damage "
          + report.damage() + "); nothing was published and the ledger was not removed");
    }
  }
}
