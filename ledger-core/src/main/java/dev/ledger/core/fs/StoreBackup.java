package dev.ledger.core.fs;

import dev.ledger.core.BackupResult;
import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.internal.io.Identifiers;
import dev.ledger.core.internal.io.SafeFiles;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.TreeMap;

/**
 * An online backup of a file store's ledgers: a copy of each, consistent at one revision,
 * taken while writers go on committing, without a lock (a reader's work).
 *
 * <pre>
 * &lt;target&gt;/                                  created if missing; must hold no store.json
 *   .ledgers.&lt;pid&gt;.&lt;n&gt;.partial/                and no ledgers/
 *     &lt;root dir&gt;/...                         each ledger copied ({@link LedgerCopy})
 *   ledgers/                                 then: rename .ledgers...partial to ledgers
 *   store.json                               last: the source's marker (its limits cover
 *                                            every record copied), created once and forced:
 *                                            the completion marker
 * </pre>
 * A directory without {@code store.json} is no store ({@code openReadOnly} refuses it), so a
 * backup killed at any step never looks complete: it leaves the hidden
 * {@code .ledgers.*.partial} directory, or {@code ledgers/} without {@code store.json}
 * (remove them and back up again). Ledgers are copied in root id order, each at the revision
 * its journal reached when its copy read the end; a ledger first committed to during the
 * backup may or may not be included, one deleted during it is left out. With {@code SYNC}
 * durability every file and directory of the backup is forced before the marker is written.
 *
 * <p>The artifact store has its own backup ({@code FileArtifactStore.backup}) that fills
 * {@code <target>/artifacts} the same way, so the two together copy a base directory that
 * holds both.
 */
final class StoreBackup {
  private StoreBackup() {}

  static BackupResult backup(Path base, List<String> roots, Path target, StoreLimits limits,
      boolean sync) throws IOException {
    Path marker = target.resolve(StoreMarker.FILE);
    Path ledgersTo = target.resolve("ledgers");
    refuseExisting(target, marker, ledgersTo);
    SafeFiles.createDirectories(target, sync);
    Path temp = SafeFiles.uniqueSibling(ledgersTo, ".partial");
    TreeMap<String, Long> revisions = new TreeMap<>();
    try {
      Files.createDirectory(temp, SafeFiles.privateDirectory(temp));
      Path ledgers = base.resolve("ledgers");
      for (String root : roots) {
        String name = Identifiers.toDirectoryName("root id", root);
        Path from = ledgers.resolve(name);
        Path to = temp.resolve(name);
        long revision = 0;
        for (int attempt = 1; ; attempt++) {
          try {
            revision = LedgerCopy.copy(root, from, to, limits, sync);
            break;
          } catch (NoSuchFileException | CorruptLedgerException e) {
            if (!Files.exists(from, LinkOption.NOFOLLOW_LINKS)) {
              revision = 0; // deleted (or archived) while it was copied
              break;
            }
            if (!(e instanceof NoSuchFileException) || attempt == 3) {
              throw e;
            }
            // A retention removed a segment the copy was about to read: copy afresh, from
            // the newer marker and checkpoint.
            LedgerTrash.removeTree(to);
          }
        }
        if (revision > 0) {
          revisions.put(root, revision);
        } else {
          LedgerTrash.removeTree(to);
        }
      }
      if (sync) {
        SafeFiles.forceDirectory(temp);
      }
      refuseExisting(target, marker, ledgersTo);
      try {
        Files.move(temp, ledgersTo, StandardCopyOption.ATOMIC_MOVE);
      } catch (FileAlreadyExistsException | DirectoryNotEmptyException e) {
        throw new LedgerIOException(target, "Cannot back up into " + target
            + ": a ledgers directory appeared there during the backup", e);
      }
      if (sync) {
        SafeFiles.forceDirectory(target);
      }
    } catch (IOException | RuntimeException e) {
      try {
        LedgerTrash.removeTree(temp);
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    // Read now, not at the start: limits only grow, and a writer raises them before it
    // writes a record they allow, so these cover every record copied.
    byte[] markerBytes = SafeFiles.readBounded(base.resolve(StoreMarker.FILE), 1 << 16);
    if (!SafeFiles.createOnce(marker, markerBytes, sync)) {
      throw new LedgerIOException(marker, "Cannot complete the backup in " + target + ": "
          + marker + " appeared during the backup", null);
    }
    return new BackupResult(target, revisions);
  }

  private static void refuseExisting(Path target, Path marker, Path ledgers) {
    for (Path p : new Path[] {marker, ledgers}) {
      if (Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
        throw new LedgerIOException(p, "Cannot back up into " + target + ": it holds " + p
            + " already; a backup goes into a new directory (or one holding only an artifact"
            + " backup)", null);
      }
    }
  }
}
