package dev.ledger.artifacts.fs;

import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.ContentId;
import dev.ledger.core.internal.io.Identifiers;
import java.nio.file.Path;

/**
 * Where everything of one artifact store lives; see {@link FileArtifactStore} for the
 * picture. Every path is derived from validated ids and digests, never from file content.
 *
 * @param root the {@code artifacts} directory
 */
record StoreLayout(Path root) {
  Path marker() {
    return root.resolve("format.json");
  }

  Path lockFile() {
    return root.resolve(".lock");
  }

  Path tmp() {
    return root.resolve("tmp");
  }

  Path blobs() {
    return root.resolve("blobs").resolve("sha256");
  }

  Path attempts() {
    return root.resolve("attempts");
  }

  Path blob(ContentId id) {
    return blobs().resolve(id.hex().substring(0, 2)).resolve(id.hex().substring(2));
  }

  Path rootDirectory(String rootId) {
    return attempts().resolve(Identifiers.toDirectoryName("root id", rootId));
  }

  Path snapshot(String rootId, String snapshotId) {
    return rootDirectory(rootId).resolve(ArtifactSnapshot.checkId(snapshotId) + ".json");
  }

  /** The snapshot id a file name in a root directory encodes, or null for any other name. */
  static String snapshotIdOf(String fileName) {
    if (!fileName.endsWith(".json")) {
      return null;
    }
    String id = fileName.substring(0, fileName.length() - ".json".length());
    return id.startsWith(ArtifactSnapshot.ID_PREFIX)
        && ContentId.isHex64(id.substring(ArtifactSnapshot.ID_PREFIX.length())) ? id : null;
  }
}
