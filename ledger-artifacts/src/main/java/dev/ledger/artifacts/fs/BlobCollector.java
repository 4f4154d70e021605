package dev.ledger.artifacts.fs;

import com.google.common.base.Preconditions;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.BlobCollection;
import dev.ledger.artifacts.CleanupMode;
import dev.ledger.artifacts.ContentId;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.internal.io.FileLocks;
import dev.ledger.core.internal.io.Identifiers;
import dev.ledger.core.internal.io.SafeFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Mark and sweep of unreferenced blobs, under the store lock for the whole run (see
 * {@link FileArtifactStore} for why that makes racing freezes safe).
 *
 * <p>Mark reads every snapshot of every root directory; a damaged snapshot aborts the run
 * before anything is deleted, since what it references is then unknown. Sweep removes each
 * blob that is not referenced and whose time (set by its last put, from the store clock) is
 * at least the grace period old. Directories are kept: a put may be creating a blob in one.
 *
 * <p>Temp files left by crashed writers are removed too, once older than the grace period
 * and at least one hour by the wall clock (their times come from the file system, not the
 * store clock, and a put in progress keeps renewing its temp file's time as it writes).
 */
final class BlobCollector {
  private static final Duration TEMP_MIN_AGE = Duration.ofHours(1);
  private static final Logger LOG = LoggerFactory.getLogger(BlobCollector.class);

  private final FileArtifactStore store;
  private final StoreLayout layout;
  private final Runnable afterMark;

  BlobCollector(FileArtifactStore store, StoreLayout layout, Runnable afterMark) {
    this.store = store;
    this.layout = layout;
    this.afterMark = afterMark;
  }

  BlobCollection collect(Duration grace, CleanupMode mode) {
    Preconditions.checkNotNull(grace, "grace");
    Preconditions.checkArgument(!grace.isNegative(), "grace must be zero or positive: %s",
        grace);
    Preconditions.checkNotNull(mode, "mode");
    store.checkWritable("garbage collection (" + mode + ")");
    try (FileLocks.Held lock = store.lock()) {
      Set<ContentId> referenced = mark();
      afterMark.run();
      return sweep(referenced, grace, mode);
    } catch (IOException e) {
      throw new LedgerIOException("collecting garbage in", layout.root(), e);
    }
  }

  private Set<ContentId> mark() throws IOException {
    Set<ContentId> referenced = new HashSet<>();
    for (Path dir : FileBlobStore.sorted(layout.attempts())) {
      String rootId = Identifiers.fromDirectoryName("root id", dir.getFileName().toString());
      if (rootId == null || !Files.isDirectory(dir)) {
        continue; // not a root directory this store writes
      }
      for (String id : store.snapshotIds(rootId)) {
        ArtifactSnapshot snapshot = SnapshotFile.read(layout.snapshot(rootId, id), rootId, id);
        if (snapshot != null) {
          referenced.addAll(snapshot.content().blobs());
        }
      }
    }
    return referenced;
  }

  private BlobCollection sweep(Set<ContentId> referenced, Duration grace, CleanupMode mode)
      throws IOException {
    boolean dryRun = mode == CleanupMode.DRY_RUN;
    Instant cutoff = store.clock().instant().minus(grace);
    List<ContentId> removed = new ArrayList<>();
    long bytes = 0;
    int young = 0;
    for (Path fan : FileBlobStore.sorted(layout.blobs())) {
      String prefix = fan.getFileName().toString();
      if (!FileBlobStore.isHex(prefix, 2)) {
        continue;
      }
      // Deleting through a linked directory would delete files outside the store.
      SafeFiles.refuseLink(fan);
      if (!Files.isDirectory(fan)) {
        continue;
      }
      boolean changed = false;
      for (Path file : FileBlobStore.sorted(fan)) {
        String name = file.getFileName().toString();
        if (!FileBlobStore.isHex(name, 62)) {
          continue; // not ours to delete; verify() reports it
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
          FileBlobStore.deletePublished(file);
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
        dryRun ? "Would remove" : "Removed", removed.size(), bytes, layout.blobs(),
        referenced.size(), young, grace);
    return new BlobCollection(removed, bytes, referenced.size(), young, mode);
  }

  private void removeStaleTemps(Duration grace) throws IOException {
    Duration minAge = grace.compareTo(TEMP_MIN_AGE) > 0 ? grace : TEMP_MIN_AGE;
    Instant cutoff = Instant.now().minus(minAge);
    for (Path temp : FileBlobStore.sorted(layout.tmp())) {
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
}
