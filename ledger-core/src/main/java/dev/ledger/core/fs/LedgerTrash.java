package dev.ledger.core.fs;

import dev.ledger.core.internal.io.SafeFiles;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removing a ledger's directory so that a crash at any step leaves the ledger whole or gone,
 * and clearing what removals and imports left behind.
 *
 * <pre>
 * ledgers/
 *   &lt;root dir&gt;/                        the ledger
 *   .trash/                            ledgers being removed; never a root id's directory
 *     .&lt;root dir&gt;.&lt;pid&gt;.&lt;n&gt;            (a root id does not start with '.'), so no
 *                                      reader, writer or listing looks at it
 *   .import.&lt;pid&gt;.&lt;n&gt;                  an import being built ({@code LedgerImport})
 *
 * delete: under the ledger's writer lock,
 *   1. rename ledgers/&lt;root dir&gt; to ledgers/.trash/.&lt;root dir&gt;.&lt;pid&gt;.&lt;n&gt;   (commit point)
 *   2. force ledgers/ and ledgers/.trash/            (the rename survives a power cut)
 *   then, without the lock,
 *   3. remove the trash entry, files before their directories
 * </pre>
 * A crash before step 1 leaves the ledger whole, after it gone; a power cut before step 2
 * ends may undo the rename, which leaves the ledger whole again. A crash in step 3 leaves a
 * part of the trash entry, which nothing reads: a writable store removes every trash entry
 * when it opens ({@link #clearLeftovers}), and so does each delete. Removing an entry that a
 * racing process removes too is harmless: what either finds gone is skipped.
 *
 * <p>Import directories are removed at open only when the process that named them (the pid
 * in the name) is no longer alive on this host: an import of a live process is still being
 * built. Both forms of name are recognized: {@code .import.<pid>.<n>} and the older
 * {@code .import-<pid>-<nanos>}.
 */
final class LedgerTrash {
  private static final Logger LOG = LoggerFactory.getLogger(LedgerTrash.class);
  static final String TRASH = ".trash";
  private static final Pattern IMPORT = Pattern.compile("\\.import[.-](\\d+)[.-]\\d+");

  private LedgerTrash() {}

  /**
   * Steps 1 and 2: moves {@code dir}, a directory of {@code ledgers}, into the trash, durably
   * with {@code sync}. Returns where it went.
   */
  static Path moveToTrash(Path ledgers, Path dir, boolean sync) throws IOException {
    Path trash = ledgers.resolve(TRASH);
    SafeFiles.createDirectoriesBelow(ledgers, trash, sync);
    Path entry = SafeFiles.uniqueSibling(trash.resolve(dir.getFileName().toString()), "");
    Files.move(dir, entry, StandardCopyOption.ATOMIC_MOVE);
    if (sync) {
      // The rename changed two directories; both must reach the disk before the ledger is
      // reported gone (a power cut may otherwise undo the removal from ledgers/).
      SafeFiles.forceDirectory(ledgers);
      SafeFiles.forceDirectory(trash);
    }
    return entry;
  }

  /**
   * Step 3: removes {@code tree} and everything below it, files before their directory,
   * never following a symbolic link (a link is removed as a link). What is already gone is
   * skipped.
   */
  static void removeTree(Path tree) throws IOException {
    if (!Files.exists(tree, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    Files.walkFileTree(tree, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        Files.deleteIfExists(file);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
        if (e instanceof NoSuchFileException) {
          return FileVisitResult.CONTINUE;
        }
        throw e;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
        if (e != null && !(e instanceof NoSuchFileException)) {
          throw e;
        }
        Files.deleteIfExists(d);
        return FileVisitResult.CONTINUE;
      }
    });
  }

  /**
   * Removes every trash entry, and the import directories of processes no longer alive.
   * Failures are logged, not thrown: leftovers are never read, and the next open retries.
   *
   * @return how many entries were removed
   */
  static int clearLeftovers(Path ledgers) {
    int removed = 0;
    Path trash = ledgers.resolve(TRASH);
    if (Files.isDirectory(trash, LinkOption.NOFOLLOW_LINKS)) {
      try (DirectoryStream<Path> entries = Files.newDirectoryStream(trash)) {
        for (Path entry : entries) {
          removed += remove(entry, "a ledger removed by an interrupted delete or archive");
        }
      } catch (IOException e) {
        LOG.warn("Could not list {} to remove what interrupted deletes left", trash, e);
      }
    }
    if (!Files.isDirectory(ledgers, LinkOption.NOFOLLOW_LINKS)) {
      return removed;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(ledgers, ".import*")) {
      for (Path entry : entries) {
        Optional<Long> pid = importer(entry.getFileName().toString());
        if (pid.isPresent() && ProcessHandle.of(pid.get()).map(ProcessHandle::isAlive)
            .orElse(false)) {
          continue; // still being built
        }
        if (pid.isPresent()) {
          removed += remove(entry, "an import interrupted by the end of process " + pid.get());
        }
      }
    } catch (IOException e) {
      LOG.warn("Could not list {} to remove what interrupted imports left", ledgers, e);
    }
    return removed;
  }

  /** The pid in an import directory's name, or empty if it is not one. */
  static Optional<Long> importer(String name) {
    Matcher m = IMPORT.matcher(name);
    return m.matches() ? Optional.of(Long.parseLong(m.group(1))) : Optional.empty();
  }

  private static int remove(Path entry, String what) {
    try {
      removeTree(entry);
      LOG.info("Removed {}: {}", entry, what);
      return 1;
    } catch (IOException e) {
      LOG.warn("Could not remove {} ({}); the next open retries", entry, what, e);
      return 0;
    }
  }
}
