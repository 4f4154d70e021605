package dev.ledger.postgres;

import dev.ledger.artifacts.BlobCollection;
import dev.ledger.artifacts.CleanupMode;
import dev.ledger.artifacts.ContentId;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.internal.io.FileLocks;
import dev.ledger.core.internal.io.SafeFiles;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Mark and sweep of the shared blob directory of a {@link PostgresArtifactStore}: the mark is
 * every blob the {@code artifact_snapshots} table references, the sweep removes each other blob
 * last put at least the grace period ago. {@link PostgresArtifactStore} explains why this is
 * safe against freezes and puts on other hosts; the steps here keep that order:
 *
 * <ol>
 *   <li>one transaction takes the collection lock (an exclusive advisory lock; every freeze
 *       holds it shared while it checks its blobs and inserts its row), then marks;
 *   <li>the blob store's lock file ({@code artifacts/.lock}, which every put holds while it
 *       links and stamps a blob) is taken, so that no put renews a blob between the age check
 *       and the delete;
 *   <li>the sweep, then both locks are released (the transaction ends).
 * </ol>
 *
 * <p>Temp files of crashed puts are removed once older than the grace period and one hour
 * by the wall clock, as the file store does.
 */
final class SharedBlobCollector {
  private static final Duration TEMP_MIN_AGE = Duration.ofHours(1);
  private static final Logger LOG = LoggerFactory.getLogger(SharedBlobCollector.class);

  private final PostgresArtifactStore store;
  private final Runnable afterMark;

  SharedBlobCollector(PostgresArtifactStore store, Runnable afterMark) {
    this.store = store;
    this.afterMark = afterMark;
  }

  BlobCollection collect(Duration grace, CleanupMode mode) {
    String operation = "Collecting garbage of " + store;
    Connection c = store.connect(operation);
    try {
      c.setAutoCommit(false);
      store.lockCollection(c, false);
      Set<ContentId> referenced = store.rows().referencedBlobs(c);
      afterMark.run();
      BlobCollection result;
      try (FileLocks.Held lock = FileLocks.acquire(store.blobLockFile(),
          store.options().lockTimeout())) {
        result = sweep(referenced, grace, mode);
      }
      c.commit();
      return result;
    } catch (SQLException e) {
      throw new DatabaseException(operation, e, false);
    } catch (IOException e) {
      throw new LedgerIOException("collecting garbage in", store.blobDirectory(), e);
    } finally {
      store.release(c);
    }
  }

  private BlobCollection sweep(Set<ContentId> referenced, Duration grace, CleanupMode mode)
      throws IOException {
    boolean dryRun = mode == CleanupMode.DRY_RUN;
    Instant cutoff = store.options().clock().instant().minus(grace);
    Path blobs = store.blobDirectory();
    List<ContentId> removed = new ArrayList<>();
    long bytes = 0;
    int young = 0;
    for (Path fan : sorted(blobs)) {
      String prefix = fan.getFileName().toString();
      if (!isHex(prefix, 2)) {
        continue;
      }
      // Deleting through a linked directory would delete files outside the store.
      SafeFiles.refuseLink(fan);
      if (!Files.isDirectory(fan)) {
        continue;
      }
      boolean changed = false;
      for (Path file : sorted(fan)) {
        String name = file.getFileName().toString();
        if (!isHex(name, 62)) {
          continue; // not ours to delete; the blob store's verify() reports it
        }
        ContentId id = new ContentId(prefix + name);
        if (referenced.contains(id)) {
          continue;
        }
        if (Files.getLastModifiedTime(file).toInstant().isAfter(cutoff)) {
          young++;
          continue;
        }
        long size = Files.size(file);
        if (!dryRun) {
          deletePublished(file);
          changed = true;
        }
        removed.add(id);
        bytes += size;
      }
      if (changed && store.sync()) {
        SafeFiles.forceDirectory(fan);
      }
    }
    if (!dryRun) {
      removeStaleTemps(grace);
    }
    LOG.info("{} {} unreferenced blobs ({} bytes) in {}; {} referenced, {} within grace {}",
        dryRun ? "Would remove" : "Removed", removed.size(), bytes, blobs, referenced.size(),
        young, grace);
    return new BlobCollection(removed, bytes, referenced.size(), young, mode);
  }

  private void removeStaleTemps(Duration grace) throws IOException {
    Duration minAge = grace.compareTo(TEMP_MIN_AGE) > 0 ? grace : TEMP_MIN_AGE;
    Instant cutoff = Instant.now().minus(minAge);
    for (Path temp : sorted(store.tempDirectory())) {
      try {
        if (temp.getFileName().toString().endsWith(".tmp")
            && Files.getLastModifiedTime(temp).toInstant().isBefore(cutoff)) {
          Files.deleteIfExists(temp);
          LOG.warn("Removed stale temp file {} left by an interrupted writer", temp);
        }
      } catch (NoSuchFileException e) {
        // published or removed by its writer meanwhile
      }
    }
  }

  /**
   * Deletes a published (read-only) blob. Where POSIX permissions exist removal depends only
   * on the directory; with DOS attributes the read-only flag must go first.
   */
  private static void deletePublished(Path file) throws IOException {
    var views = file.getFileSystem().supportedFileAttributeViews();
    if (views.contains("dos") && !views.contains("posix") && Files.exists(file)) {
      Files.setAttribute(file, "dos:readonly", false);
    }
    Files.deleteIfExists(file);
  }

  private static List<Path> sorted(Path dir) throws IOException {
    List<Path> out = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      entries.forEach(out::add);
    } catch (NoSuchFileException e) {
      return out;
    }
    out.sort(null);
    return out;
  }

  private static boolean isHex(String value, int length) {
    if (value.length() != length) {
      return false;
    }
    for (int i = 0; i < length; i++) {
      char ch = value.charAt(i);
      if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'))) {
        return false;
      }
    }
    return true;
  }
}
