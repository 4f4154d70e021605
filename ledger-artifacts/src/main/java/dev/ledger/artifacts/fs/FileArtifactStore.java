package dev.ledger.artifacts.fs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.base.Preconditions;
import dev.ledger.artifacts.ArtifactConflictException;
import dev.ledger.artifacts.ArtifactNotFoundException;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.ArtifactStore;
import dev.ledger.artifacts.AttemptSubmission;
import dev.ledger.artifacts.BlobCollection;
import dev.ledger.artifacts.BlobNotFoundException;
import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.CorruptArtifactException;
import dev.ledger.artifacts.OrphanCleanup;
import dev.ledger.artifacts.SnapshotContent;
import dev.ledger.artifacts.SnapshotPage;
import dev.ledger.core.Durability;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.StoreClosedException;
import dev.ledger.core.UnsupportedFormatException;
import dev.ledger.core.internal.io.FileLocks;
import dev.ledger.core.internal.io.Identifiers;
import dev.ledger.core.internal.io.SafeFiles;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * An {@link ArtifactStore} in a directory: durable, safe across threads and processes,
 * readable with {@code cat} and {@code jq}.
 *
 * <pre>
 * &lt;base&gt;/artifacts/
 *   format.json                       {"format" : 1, "kind" : "dev.ledger.artifacts"}
 *   .lock                             store lock (see below); never deleted
 *   tmp/&lt;uuid&gt;.tmp                    files being written, removed when published
 *   blobs/sha256/&lt;2 hex&gt;/&lt;62 hex&gt;    immutable blobs ({@link FileBlobStore})
 *   attempts/&lt;root dir&gt;/attempt-&lt;64 hex&gt;.json
 *                                     frozen snapshots ({@code SnapshotFile}); the root dir
 *                                     is the root id encoded by {@link Identifiers}
 * </pre>
 * Files are owner-only (published ones read-only, 0400), directories 0700, where POSIX
 * permissions exist. With a fixed clock the same calls give byte-identical files.
 *
 * <p><b>Freeze.</b> Files of the submission are put as blobs first (outside any lock). If the
 * attempt's snapshot file exists it decides: same digest, it is returned; otherwise a
 * conflict. Else, under the store lock: the file is looked for again (a racer may have won
 * meanwhile, then it decides as above); every referenced blob must exist; the snapshot is
 * written to a temp file, forced, made read-only and hard-linked to its name. The link is
 * the commit point and fails if the name exists (first write wins even against a writer
 * that would bypass the lock). The directory is forced after the link. Readers take no lock: a published file is complete
 * and never changes.
 *
 * <p><b>The store lock and garbage collection.</b> Collection must never delete a blob that
 * a snapshot references. It holds the store lock ({@code .lock}, through
 * {@link FileLocks}: safe across threads and processes) from before it lists snapshots
 * (mark) until after it deletes (sweep). A freeze checks that its blobs exist and publishes
 * under the same lock, and a put publishes or renews a blob's time under it. So a freeze
 * lands either before the mark (its references are seen) or after the sweep (it finds a
 * deleted blob missing and fails with {@link BlobNotFoundException}, freezing nothing).
 * Blobs that were put but not yet referenced are protected by the grace period: a put
 * stamps the blob with the store clock, renewing it if it exists, and collection spares
 * blobs younger than the grace period. The lock is held only for short steps by puts and
 * freezes (no hashing or streaming under it); collection holds it for its whole run, so a
 * put or freeze may wait up to {@link LedgerOptions#lockTimeout()} for it. A plain
 * put-time stamp without the lock would not do: a put could renew a blob between the
 * collector's age check and its delete.
 *
 * <p>Thread-safe. Any number of stores, in this and other processes, may open one directory.
 */
public final class FileArtifactStore implements ArtifactStore {
  private static final String KIND = "dev.ledger.artifacts";
  private static final int FORMAT = 1;

  private final StoreLayout layout;
  private final LedgerOptions options;
  private final FileBlobStore blobs;
  private volatile boolean closed;

  private FileArtifactStore(Path base, LedgerOptions options) {
    this.layout = new StoreLayout(base.toAbsolutePath().resolve("artifacts"));
    this.options = options;
    this.blobs = new FileBlobStore(layout, this);
  }

  /** Opens (creating if needed) the artifact store under {@code base} with default options. */
  public static FileArtifactStore open(Path base) {
    return open(base, LedgerOptions.defaults());
  }

  /**
   * Opens (creating if needed) the artifact store under {@code base}, in
   * {@code base/artifacts}. Uses the options' durability, lock timeout and clock.
   *
   * @throws UnsupportedFormatException if the store was written by a newer format
   * @throws CorruptArtifactException if {@code format.json} is not an artifact store marker
   * @throws LedgerIOException if the directories cannot be created
   */
  public static FileArtifactStore open(Path base, LedgerOptions options) {
    Preconditions.checkNotNull(base, "base");
    Preconditions.checkNotNull(options, "options");
    FileArtifactStore store = new FileArtifactStore(base, options);
    store.initialize();
    return store;
  }

  private void initialize() {
    Path marker = layout.marker();
    try {
      SafeFiles.createDirectories(layout.blobs(), sync());
      SafeFiles.createDirectories(layout.attempts(), sync());
      SafeFiles.createDirectories(layout.tmp(), sync());
      if (!Files.exists(marker)) {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        node.put("format", FORMAT);
        node.put("kind", KIND);
        Path temp = writeTemp(LedgerJson.pretty(node), false);
        SafeFiles.publishOnce(temp, marker, sync()); // a racing opener may have won: fine
      }
      checkMarker(marker, SafeFiles.readBounded(marker, 4096));
    } catch (IOException e) {
      throw new LedgerIOException("opening artifact store", layout.root(), e);
    }
  }

  private static void checkMarker(Path marker, byte[] bytes) {
    JsonNode node;
    try {
      node = LedgerJson.parse(bytes);
    } catch (IOException e) {
      throw new CorruptArtifactException(marker, "not an artifact store marker (not JSON)", e);
    }
    JsonNode format = node.get("format");
    if (node.get("kind") == null || !KIND.equals(node.get("kind").asText()) || format == null
        || !format.isIntegralNumber() || format.longValue() < 1) {
      throw new CorruptArtifactException(marker, "not an artifact store marker: expected kind '"
          + KIND + "' and a positive integer format");
    }
    if (format.longValue() > FORMAT) {
      throw new UnsupportedFormatException(marker, "artifact store format", format.longValue(),
          FORMAT);
    }
  }

  /** The {@code artifacts} directory. */
  public Path directory() {
    return layout.root();
  }

  @Override
  public FileBlobStore blobs() {
    checkOpen();
    return blobs;
  }

  /** The file of snapshot {@code snapshotId} of {@code rootId} (which may not exist). */
  public Path snapshotPath(String rootId, String snapshotId) {
    return layout.snapshot(rootId, snapshotId);
  }

  @Override
  public ArtifactSnapshot freeze(String rootId, String attemptId, AttemptSubmission submission) {
    checkOpen();
    Identifiers.check("root id", rootId);
    String snapshotId = ArtifactSnapshot.idFor(attemptId);
    Preconditions.checkNotNull(submission, "submission");
    Path file = layout.snapshot(rootId, snapshotId);
    SnapshotContent content = SnapshotContent.normalize(submission, blobs);
    String digest = content.sha256();
    ArtifactSnapshot existing = SnapshotFile.read(file, rootId, snapshotId);
    if (existing != null) {
      return sameOrConflict(existing, digest);
    }
    ArtifactSnapshot snapshot = ArtifactSnapshot.of(rootId, attemptId, content,
        options.clock().instant());
    try (FileLocks.Held lock = lock()) {
      // Under the lock no other freeze publishes and no cleanup deletes, so the existing
      // snapshot (if a racer won meanwhile) decides before anything else.
      existing = SnapshotFile.read(file, rootId, snapshotId);
      if (existing == null) {
        for (ContentId id : content.blobs()) {
          if (!Files.isRegularFile(layout.blob(id))) {
            throw new BlobNotFoundException(id, layout.blob(id));
          }
        }
        SafeFiles.createDirectories(file.getParent(), sync());
        Path temp = writeTemp(SnapshotFile.encode(snapshot), true);
        if (SafeFiles.publishOnce(temp, file, sync())) {
          return snapshot;
        }
        // Only a writer that bypasses the lock gets here; its link still decides.
        existing = SnapshotFile.read(file, rootId, snapshotId);
        if (existing == null) {
          throw new CorruptArtifactException(file, "exists and does not exist: the link to it"
              + " failed but it cannot be read");
        }
      }
      return sameOrConflict(existing, digest);
    } catch (IOException e) {
      throw new LedgerIOException("freezing attempt '" + attemptId + "' at", file, e);
    }
  }

  private static ArtifactSnapshot sameOrConflict(ArtifactSnapshot existing, String digest) {
    if (existing.sha256().equals(digest)) {
      return existing;
    }
    throw new ArtifactConflictException(existing.rootId(), existing.attemptId(),
        existing.sha256(), digest);
  }

  @Override
  public ArtifactSnapshot get(String rootId, String snapshotId) {
    checkOpen();
    Identifiers.check("root id", rootId);
    ArtifactSnapshot snapshot = SnapshotFile.read(layout.snapshot(rootId, snapshotId), rootId,
        snapshotId);
    if (snapshot == null) {
      throw new ArtifactNotFoundException(rootId, snapshotId);
    }
    return snapshot;
  }

  @Override
  public Optional<ArtifactSnapshot> getForAttempt(String rootId, String attemptId) {
    checkOpen();
    Identifiers.check("root id", rootId);
    String snapshotId = ArtifactSnapshot.idFor(attemptId);
    return Optional.ofNullable(SnapshotFile.read(layout.snapshot(rootId, snapshotId), rootId,
        snapshotId));
  }

  @Override
  public SnapshotPage list(String rootId, String after, int limit) {
    checkOpen();
    Identifiers.check("root id", rootId);
    Preconditions.checkArgument(limit >= 1, "limit must be at least 1: %s", limit);
    if (after != null) {
      ArtifactSnapshot.checkId(after);
    }
    List<String> ids = snapshotIds(rootId);
    List<ArtifactSnapshot> page = new ArrayList<>();
    int i = 0;
    while (i < ids.size() && after != null && ids.get(i).compareTo(after) <= 0) {
      i++;
    }
    for (; i < ids.size() && page.size() < limit; i++) {
      ArtifactSnapshot snapshot = SnapshotFile.read(layout.snapshot(rootId, ids.get(i)), rootId,
          ids.get(i));
      if (snapshot != null) { // removed by a cleanup since listing
        page.add(snapshot);
      }
    }
    Optional<String> next = i < ids.size() && !page.isEmpty()
        ? Optional.of(page.get(page.size() - 1).snapshotId()) : Optional.empty();
    return new SnapshotPage(page, next);
  }

  @Override
  public List<ArtifactSnapshot> listOrphans(String rootId, Set<String> knownAttemptIds) {
    checkOpen();
    Identifiers.check("root id", rootId);
    Preconditions.checkNotNull(knownAttemptIds, "knownAttemptIds");
    return new Orphans(this, layout, rootId).list(knownAttemptIds);
  }

  @Override
  public OrphanCleanup cleanupOrphans(String rootId, Set<String> knownAttemptIds,
      Duration minAge, boolean dryRun) {
    checkOpen();
    Identifiers.check("root id", rootId);
    Preconditions.checkNotNull(knownAttemptIds, "knownAttemptIds");
    Preconditions.checkNotNull(minAge, "minAge");
    Preconditions.checkArgument(!minAge.isNegative(), "minAge must be zero or positive: %s",
        minAge);
    return new Orphans(this, layout, rootId).cleanup(knownAttemptIds, minAge, dryRun);
  }

  @Override
  public BlobCollection collectGarbage(Duration grace, boolean dryRun) {
    return collector(() -> { }).collect(grace, dryRun);
  }

  /** A collector that runs {@code afterMark} between mark and sweep (tests use the hook). */
  BlobCollector collector(Runnable afterMark) {
    checkOpen();
    return new BlobCollector(this, layout, afterMark);
  }

  /** The snapshot ids of a root's directory, in order; names of other files are skipped. */
  List<String> snapshotIds(String rootId) {
    List<String> ids = new ArrayList<>();
    try {
      for (Path entry : FileBlobStore.sorted(layout.rootDirectory(rootId))) {
        String id = StoreLayout.snapshotIdOf(entry.getFileName().toString());
        if (id != null) {
          ids.add(id);
        }
      }
    } catch (IOException e) {
      throw new LedgerIOException("listing snapshots in", layout.rootDirectory(rootId), e);
    }
    return ids;
  }

  /**
   * Writes {@code bytes} to a new temp file, forced under SYNC and optionally made read-only,
   * and returns it; on failure the temp file is removed.
   */
  private Path writeTemp(byte[] bytes, boolean readOnly) throws IOException {
    Path temp = layout.tmp().resolve(UUID.randomUUID() + ".tmp");
    try {
      try (FileChannel channel = SafeFiles.open(temp,
          Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))) {
        SafeFiles.writeFully(channel, ByteBuffer.wrap(bytes), 0);
        if (sync()) {
          channel.force(true);
        }
      }
      if (readOnly) {
        FileBlobStore.makeReadOnly(temp);
      }
    } catch (IOException e) {
      try {
        Files.deleteIfExists(temp);
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    return temp;
  }

  FileLocks.Held lock() {
    return FileLocks.acquire(layout.lockFile(), options.lockTimeout());
  }

  boolean sync() {
    return options.durability() == Durability.SYNC;
  }

  Clock clock() {
    return options.clock();
  }

  void checkOpen() {
    if (closed) {
      throw new StoreClosedException("artifact store at " + layout.root());
    }
  }

  /** Closes the store; later calls throw {@link StoreClosedException}. Idempotent. */
  @Override
  public void close() {
    closed = true;
  }

  @Override
  public String toString() {
    return "FileArtifactStore[" + layout.root() + "]";
  }
}
