package dev.ledger.artifacts.fs;

import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.ContentId;
import dev.ledger.core.internal.io.Identifiers;
import dev.ledger.core.internal.io.SafeFiles;
import java.nio.file.Path;

/**
 * Where everything of one artifact store lives; see {@link FileArtifactStore} for the
 * picture. Every path is derived from validated ids and digests, never from file content.
 *
 * <p><b>No symbolic links.</b> The store's base directory (the parent of {@code artifacts})
 * may be a link; nothing below it may be. Each accessor that names a directory or file of
 * the store checks, with an {@code lstat} per component below the base, that no component
 * of the returned path is a link, and throws {@link dev.ledger.core.SymbolicLinkException}
 * naming the first one found. So a blob, a snapshot, their directories, {@code tmp},
 * {@code format.json} and the lock file are never reached through a link, whichever
 * operation asks for them.
 *
 * @param root the {@code artifacts} directory
 */
record StoreLayout(Path root) {
  private Path checked(Path path) {
    return SafeFiles.refuseLinksBelow(root.getParent(), path);
  }

  Path marker() {
    return checked(root.resolve("format.json"));
  }

  Path lockFile() {
    return checked(root.resolve(".lock"));
  }

  Path tmp() {
    return checked(root.resolve("tmp"));
  }

  Path blobs() {
    return checked(root.resolve("blobs").resolve("sha256"));
  }

  Path attempts() {
    return checked(root.resolve("attempts"));
  }

  Path blob(ContentId id) {
    return checked(root.resolve("blobs").resolve("sha256").resolve(id.hex().substring(0, 2))
        .resolve(id.hex().substring(2)));
  }

  Path rootDirectory(String rootId) {
    return checked(root.resolve("attempts")
        .resolve(Identifiers.toDirectoryName("root id", rootId)));
  }

  Path snapshot(String rootId, String snapshotId) {
    String name = ArtifactSnapshot.checkId(snapshotId) + ".json";
    return checked(root.resolve("attempts")
        .resolve(Identifiers.toDirectoryName("root id", rootId)).resolve(name));
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
