package dev.ledger.artifacts.fs;

import dev.ledger.artifacts.ArtifactBackupResult;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.internal.io.SafeFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * An online backup of the artifact store: everything published is immutable (first write
 * wins; a published blob or snapshot never changes), so a copy of what is present is
 * consistent without a lock.
 *
 * <pre>
 * &lt;target&gt;/                                   created if missing; must hold no artifacts/
 *   .artifacts.&lt;pid&gt;.&lt;n&gt;.partial/              built here:
 *     format.json                             the marker
 *     attempts/&lt;root dir&gt;/attempt-&lt;hex&gt;.json   1. every snapshot present
 *     blobs/sha256/&lt;2 hex&gt;/&lt;62 hex&gt;            2. then every blob present (read-only)
 *   artifacts/                                3. rename .artifacts...partial to artifacts,
 *                                                force the target (commit point)
 * </pre>
 * Snapshots are copied before blobs: a snapshot is frozen only once the blobs it references
 * are published, so every blob a copied snapshot references is present when step 2 lists
 * them. (A garbage collection that removes a blob during the backup removes only blobs no
 * snapshot references; an orphan cleanup racing it can leave a copied snapshot whose blob
 * was collected meanwhile: {@code verify()} of the copy then names it.) The temp directory,
 * the lock file and temp files of the source are not copied. A backup killed before step 3
 * leaves the hidden {@code .artifacts.*.partial} directory, which no store reads; there is no
 * {@code artifacts} directory, so it never opens as a store. With {@code SYNC} durability
 * every file and directory is forced before the rename.
 */
final class ArtifactBackup {
  private static final int BUFFER = 256 * 1024;

  private ArtifactBackup() {}

  static ArtifactBackupResult backup(StoreLayout source, Path target, boolean sync)
      throws IOException {
    Path published = target.resolve("artifacts");
    refuseExisting(published);
    SafeFiles.createDirectories(target, sync);
    Path temp = SafeFiles.uniqueSibling(published, ".partial");
    Counts counts = new Counts();
    try {
      Files.createDirectory(temp, SafeFiles.privateDirectory(temp));
      copy(source.marker(), temp.resolve("format.json"), sync, counts);
      List<Path> dirs = new ArrayList<>();
      dirs.add(temp);
      copyTree(source.attempts(), temp.resolve("attempts"), false, sync, counts, dirs);
      Path blobs = temp.resolve("blobs");
      createDirectory(blobs, dirs);
      copyTree(source.blobs(), blobs.resolve("sha256"), true, sync, counts, dirs);
      createDirectory(temp.resolve("tmp"), dirs);
      if (sync) {
        // Deepest first: each directory's entries, then the directory holding it.
        dirs.sort(Comparator.comparingInt(Path::getNameCount).reversed());
        for (Path dir : dirs) {
          SafeFiles.forceDirectory(dir);
        }
      }
      refuseExisting(published);
      try {
        Files.move(temp, published, StandardCopyOption.ATOMIC_MOVE);
      } catch (FileAlreadyExistsException | DirectoryNotEmptyException e) {
        throw new LedgerIOException(published, "Cannot back up into " + target
            + ": an artifacts directory appeared there during the backup", e);
      }
      if (sync) {
        SafeFiles.forceDirectory(target);
      }
      return new ArtifactBackupResult(target, counts.snapshots, counts.blobs, counts.bytes);
    } catch (IOException | RuntimeException e) {
      removeTree(temp, e);
      throw e;
    }
  }

  private static void refuseExisting(Path published) {
    if (Files.exists(published, LinkOption.NOFOLLOW_LINKS)) {
      throw new LedgerIOException(published, "Cannot back up into " + published.getParent()
          + ": it holds " + published + " already; a backup goes into a new directory (or"
          + " one holding only a ledger store's backup)", null);
    }
  }

  /** Copies the visible files below {@code from} (none if it is missing). */
  private static void copyTree(Path from, Path to, boolean blobs, boolean sync, Counts counts,
      List<Path> dirs) throws IOException {
    createDirectory(to, dirs);
    if (!Files.isDirectory(from, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    Files.walkFileTree(from, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs)
          throws IOException {
        if (!dir.equals(from)) {
          createDirectory(to.resolve(from.relativize(dir).toString()), dirs);
        }
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        if (attrs.isRegularFile() && !file.getFileName().toString().startsWith(".")) {
          Path copy = to.resolve(from.relativize(file).toString());
          try {
            copy(file, copy, sync, counts);
          } catch (NoSuchFileException e) {
            return FileVisitResult.CONTINUE; // cleaned up or collected since it was listed
          }
          if (blobs) {
            FileBlobStore.makeReadOnly(copy);
            counts.blobs++;
          } else {
            counts.snapshots++;
          }
        }
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
        if (e instanceof NoSuchFileException) {
          return FileVisitResult.CONTINUE;
        }
        throw e;
      }
    });
  }

  /**
   * Creates one directory (not {@code createDirectories}, which swallows a first failure and
   * tries again) and remembers it, to be forced.
   */
  private static void createDirectory(Path dir, List<Path> dirs) throws IOException {
    Files.createDirectory(dir, SafeFiles.privateDirectory(dir));
    dirs.add(dir);
  }

  private static void copy(Path source, Path target, boolean sync, Counts counts)
      throws IOException {
    try (FileChannel in = SafeFiles.openRead(source);
        FileChannel out = SafeFiles.open(target, Set.of(StandardOpenOption.CREATE_NEW,
            StandardOpenOption.WRITE))) {
      ByteBuffer buffer = ByteBuffer.allocate(BUFFER);
      long at = 0;
      int n;
      while ((n = in.read(buffer.clear(), at)) >= 0) {
        buffer.flip();
        SafeFiles.writeFully(out, buffer, at);
        at += n;
      }
      if (sync) {
        out.force(true);
      }
      counts.bytes += at;
    }
  }

  private static void removeTree(Path tree, Exception failure) {
    if (!Files.exists(tree, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> all = Files.walk(tree)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException | RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  private static final class Counts {
    int snapshots;
    int blobs;
    long bytes;
  }
}
