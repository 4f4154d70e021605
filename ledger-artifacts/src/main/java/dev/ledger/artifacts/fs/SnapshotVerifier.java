package dev.ledger.artifacts.fs;

import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.CorruptArtifactException;
import dev.ledger.artifacts.SnapshotDamage;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.UnsupportedFormatException;
import dev.ledger.core.internal.io.Identifiers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks every snapshot file of a store: it parses ({@link SnapshotFile#read}, which checks
 * the digest against the content, the name against the attempt id and the root against the
 * directory) and every blob it references exists. Reads only; takes no lock. A snapshot
 * removed while it is checked (orphan cleanup) is skipped, and so is a missing blob whose
 * snapshot was removed meanwhile: collection may delete a blob only once no snapshot holds
 * it.
 */
final class SnapshotVerifier {
  private final StoreLayout layout;
  final List<SnapshotDamage> damaged = new ArrayList<>();
  long checked;

  SnapshotVerifier(StoreLayout layout) {
    this.layout = layout;
  }

  void verify() {
    try {
      for (Path dir : FileBlobStore.sorted(layout.attempts())) {
        String rootId = Identifiers.fromDirectoryName("root id", dir.getFileName().toString());
        if (rootId == null || !Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
          damaged.add(new SnapshotDamage(dir, null, null, "not a root directory"));
          continue;
        }
        for (Path file : FileBlobStore.sorted(dir)) {
          checked++;
          verifyOne(rootId, file);
        }
      }
    } catch (IOException e) {
      throw new LedgerIOException("verifying snapshots in", layout.attempts(), e);
    }
  }

  private void verifyOne(String rootId, Path file) {
    String snapshotId = StoreLayout.snapshotIdOf(file.getFileName().toString());
    if (snapshotId == null) {
      damaged.add(new SnapshotDamage(file, rootId, null, "misnamed: not a snapshot file name"));
      return;
    }
    ArtifactSnapshot snapshot;
    try {
      snapshot = SnapshotFile.read(file, rootId, snapshotId);
    } catch (CorruptArtifactException | UnsupportedFormatException e) {
      damaged.add(new SnapshotDamage(file, rootId, null, e.getMessage()));
      return;
    } catch (LedgerIOException e) {
      damaged.add(new SnapshotDamage(file, rootId, null, "unreadable: " + e.getMessage()));
      return;
    }
    if (snapshot == null) {
      checked--; // removed while we looked
      return;
    }
    for (ContentId blob : snapshot.content().blobs()) {
      if (!Files.exists(layout.blob(blob)) && Files.exists(file)) {
        damaged.add(new SnapshotDamage(file, rootId, blob, "references blob " + blob
            + ", which the store does not hold (" + layout.blob(blob) + ")"));
      }
    }
  }
}
