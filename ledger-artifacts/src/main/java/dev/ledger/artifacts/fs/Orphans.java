package dev.ledger.artifacts.fs;

import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.CleanupMode;
import dev.ledger.artifacts.OrphanCleanup;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.internal.io.FileLocks;
import dev.ledger.core.internal.io.SafeFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Listing and removing the orphan snapshots of one root: snapshots whose attempt the caller
 * no longer knows. What is deleted is always a path found by listing the root's directory
 * (a snapshot's content never chooses a path), and only after every snapshot of the root
 * has been read and validated: one damaged file stops the cleanup before anything is gone.
 */
final class Orphans {
  private static final Logger LOG = LoggerFactory.getLogger(Orphans.class);
  private final FileArtifactStore store;
  private final StoreLayout layout;
  private final String rootId;

  Orphans(FileArtifactStore store, StoreLayout layout, String rootId) {
    this.store = store;
    this.layout = layout;
    this.rootId = rootId;
  }

  private record Found(Path path, ArtifactSnapshot snapshot) {}

  private List<Found> orphans(Set<String> known) {
    List<Found> out = new ArrayList<>();
    for (String id : store.snapshotIds(rootId)) {
      Path path = layout.snapshot(rootId, id);
      ArtifactSnapshot snapshot = SnapshotFile.read(path, rootId, id);
      if (snapshot != null && !known.contains(snapshot.attemptId())) {
        out.add(new Found(path, snapshot));
      }
    }
    return out;
  }

  List<ArtifactSnapshot> list(Set<String> known) {
    return orphans(known).stream().map(Found::snapshot).toList();
  }

  OrphanCleanup cleanup(Set<String> known, Duration minAge, CleanupMode mode) {
    boolean dryRun = mode == CleanupMode.DRY_RUN;
    // Under the store lock so that cleanups of one root do not interleave; reads first.
    try (FileLocks.Held lock = store.lock()) {
      Instant now = store.clock().instant();
      List<Found> remove = new ArrayList<>();
      List<String> tooYoung = new ArrayList<>();
      for (Found found : orphans(known)) {
        if (Duration.between(found.snapshot().frozenAt(), now).compareTo(minAge) >= 0) {
          remove.add(found);
        } else {
          tooYoung.add(found.snapshot().snapshotId());
        }
      }
      if (!dryRun && !remove.isEmpty()) {
        Path directory = layout.rootDirectory(rootId);
        try {
          for (Found found : remove) {
            FileBlobStore.deletePublished(found.path());
          }
          if (store.sync()) {
            SafeFiles.forceDirectory(directory);
          }
        } catch (IOException e) {
          throw new LedgerIOException("removing orphan snapshots in", directory, e);
        }
      }
      LOG.info("{} {} orphan snapshots of root '{}' ({} younger than {} kept)",
          dryRun ? "Would remove" : "Removed", remove.size(), rootId, tooYoung.size(), minAge);
      return new OrphanCleanup(remove.stream().map(f -> f.snapshot().snapshotId()).toList(),
          tooYoung, mode);
    }
  }
}
