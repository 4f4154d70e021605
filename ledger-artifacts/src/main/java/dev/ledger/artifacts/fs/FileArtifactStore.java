package dev.ledger.artifacts.fs;

import com.google.common.base.Preconditions;
import dev.ledger.artifacts.ArtifactBackupResult;
import dev.ledger.artifacts.ArtifactConflictException;
import dev.ledger.artifacts.ArtifactNotFoundException;
import dev.ledger.artifacts.ArtifactOptions;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.ArtifactStore;
import dev.ledger.artifacts.ArtifactVerification;
import dev.ledger.artifacts.AttemptSubmission;
import dev.ledger.artifacts.BlobCollection;
import dev.ledger.artifacts.internal.ArtifactMeters;
import dev.ledger.artifacts.BlobNotFoundException;
import dev.ledger.artifacts.BlobVerification;
import dev.ledger.artifacts.CleanupMode;
import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.CorruptArtifactException;
import dev.ledger.artifacts.OrphanCleanup;
import dev.ledger.artifacts.ReadOnlyArtifactStoreException;
import dev.ledger.artifacts.SnapshotContent;
import dev.ledger.artifacts.SnapshotCursor;
import dev.ledger.artifacts.SnapshotPage;
import dev.ledger.core.Durability;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.StoreClosedException;
import dev.ledger.core.UnsupportedFormatException;
import dev.ledger.core.internal.io.FileLocks;
import dev.ledger.core.internal.io.Identifiers;
import dev.ledger.core.internal.io.SafeFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
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
 *   format.json                       store marker ({@code StoreMarker}); never changes
 *   .lock                             store lock (see below); never deleted
 *   tmp/&lt;uuid&gt;.tmp                    files being written, removed when published
 *   blobs/sha256/&lt;2 hex&gt;/&lt;62 hex&gt;    immutable blobs ({@link FileBlobStore})
 *   attempts/&lt;root dir&gt;/attempt-&lt;64 hex&gt;.json
 *                                     frozen snapshots ({@code SnapshotFile}); the root dir
 *                                     is the root id, each upper-case letter written
 *                                     as '!' and its lower case ({@code Run-1}: {@code !run-1})
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
 * that would bypass the lock). The directory is forced after the link. Readers take no
 * lock: a published file is complete and never changes.
 *
 * <p><b>The store lock and garbage collection.</b> Collection must never delete a blob that
 * a snapshot references. It holds the store lock ({@code .lock}, a {@code FileChannel} lock
 * behind an in-process lock: safe across threads and processes) from before it lists
 * snapshots (mark) until after it deletes (sweep). A freeze checks that its blobs exist and publishes
 * under the same lock, and a put publishes or renews a blob's time under it. So a freeze
 * lands either before the mark (its references are seen) or after the sweep (it finds a
 * deleted blob missing and fails with {@link BlobNotFoundException}, freezing nothing).
 * Blobs that were put but not yet referenced are protected by the grace period: a put
 * stamps the blob with the store clock, renewing it if it exists, and collection spares
 * blobs younger than the grace period. The lock is held only for short steps by puts and
 * freezes (no hashing or streaming under it); collection holds it for its whole run, so a
 * put or freeze may wait up to {@link ArtifactOptions#lockTimeout()} for it. A plain
 * put-time stamp without the lock would not do: a put could renew a blob between the
 * collector's age check and its delete.
 *
 * <p><b>Read-only.</b> {@link #openReadOnly} opens an existing store without creating,
 * locking or writing anything, for replay tools and copied directories; see there.
 *
 * <p>Thread-safe. Any number of stores, in this and other processes, may open one directory.
 */
public final class FileArtifactStore implements ArtifactStore {
  private final StoreLayout layout;
  private final ArtifactOptions options;
  private final boolean readOnly;
  private final FileBlobStore blobs;
  private volatile boolean closed;
  /** What the store records; {@link ArtifactMeters#NONE} without a meter registry. */
  private final ArtifactMeters meters;

  private FileArtifactStore(Path base, ArtifactOptions options, boolean readOnly) {
    this.layout = new StoreLayout(base.toAbsolutePath().resolve("artifacts"));
    this.options = options;
    this.readOnly = readOnly;
    this.meters = ArtifactMeters.of(options.meterRegistry());
    this.blobs = new FileBlobStore(layout, this);
  }

  /**
   * Opens (creating if needed) the artifact store under {@code base} with default options.
   *
   * @param base the store's base directory; the artifact store lives in
   *     {@code base/artifacts}, so a ledger store may share the base
   * @return the open store
   * @throws UnsupportedFormatException if the store was written by a newer format
   * @throws CorruptArtifactException if {@code format.json} is not an artifact store marker
   * @throws LedgerIOException if {@code base} is not a directory or the directories cannot
   *     be created
   * @throws NullPointerException if {@code base} is null
   */
  public static FileArtifactStore open(Path base) {
    return open(base, ArtifactOptions.defaults());
  }

  /**
   * Opens (creating if needed) the artifact store under {@code base}, in
   * {@code base/artifacts}, with the options' durability, lock timeout and clock.
   *
   * @param base the store's base directory; a ledger store may share it
   * @param options the durability, lock timeout and clock to run with
   * @return the open store
   * @throws UnsupportedFormatException if the store was written by a newer format
   * @throws CorruptArtifactException if {@code format.json} is not an artifact store marker
   * @throws LedgerIOException if {@code base} is not a directory or the directories cannot
   *     be created
   * @throws NullPointerException if {@code base} or {@code options} is null
   */
  public static FileArtifactStore open(Path base, ArtifactOptions options) {
    Preconditions.checkNotNull(base, "base");
    Preconditions.checkNotNull(options, "options");
    FileArtifactStore store = new FileArtifactStore(base, options, false);
    store.initialize();
    return store;
  }

  /**
   * Opens an existing artifact store for reading only, for replay tools and copied (or
   * read-only mounted) directories. It creates, locks and writes nothing, not even on
   * close. Reads, listings, {@link #listOrphans}, {@link #rootIds} and blob
   * {@linkplain FileBlobStore#verify() verification} work as in a writable store; every
   * write (blob puts, freezes, orphan cleanups and garbage collections, dry runs included)
   * throws {@link ReadOnlyArtifactStoreException}. Writers in other processes may keep
   * writing meanwhile: a published file is complete and never changes, so a reader never
   * sees half of one.
   *
   * @param base the base directory given to {@link #open} when the store was written
   * @return the read-only store, whose {@link #options()} are the defaults (it uses none)
   * @throws LedgerIOException if {@code base} is not a directory or holds no artifact store
   *     ({@code base/artifacts/format.json} does not exist)
   * @throws UnsupportedFormatException if the store was written by a newer format
   * @throws CorruptArtifactException if {@code format.json} is not an artifact store marker
   * @throws NullPointerException if {@code base} is null
   */
  public static FileArtifactStore openReadOnly(Path base) {
    Preconditions.checkNotNull(base, "base");
    FileArtifactStore store = new FileArtifactStore(base, ArtifactOptions.defaults(), true);
    Path absolute = base.toAbsolutePath();
    Path marker = store.layout.marker();
    try {
      requireDirectory(absolute);
      if (!Files.isRegularFile(marker)) {
        throw new NoSuchFileException(marker.toString(), null,
            "no artifact store at " + absolute + " (it has no artifacts/format.json)");
      }
      StoreMarker.check(marker);
    } catch (IOException e) {
      throw new LedgerIOException("opening artifact store read-only", absolute, e);
    }
    return store;
  }

  private void initialize() {
    Path marker = layout.marker();
    try {
      requireDirectory(layout.root().getParent());
      requireDirectory(layout.root());
      SafeFiles.createDirectories(layout.blobs(), sync());
      SafeFiles.createDirectories(layout.attempts(), sync());
      SafeFiles.createDirectories(layout.tmp(), sync());
      if (!Files.exists(marker)) {
        Path temp = writeTemp(StoreMarker.encode(), false);
        SafeFiles.publishOnce(temp, marker, sync()); // a racing opener may have won: fine
      }
      StoreMarker.check(marker);
    } catch (IOException e) {
      throw new LedgerIOException("opening artifact store", layout.root(), e);
    }
  }

  /** Refuses a path that exists and is not a directory; a missing one is fine. */
  private static void requireDirectory(Path dir) throws IOException {
    if (Files.exists(dir) && !Files.isDirectory(dir)) {
      throw new FileSystemException(dir.toString(), null, "not a directory");
    }
  }

  /**
   * The {@code artifacts} directory.
   *
   * @return its absolute path
   */
  public Path directory() {
    return layout.root();
  }

  /**
   * Whether this store was opened with {@link #openReadOnly}.
   *
   * @return true if every write is refused
   */
  public boolean readOnly() {
    return readOnly;
  }

  @Override
  public ArtifactOptions options() {
    return options;
  }

  @Override
  public FileBlobStore blobs() {
    checkOpen();
    return blobs;
  }

  /**
   * The file of a snapshot, which may not exist. Touches nothing.
   *
   * @param rootId the root of the snapshot
   * @param snapshotId the snapshot, {@code attempt-<64 hex>}
   * @return the path where it is (or would be) stored
   * @throws dev.ledger.core.InvalidIdentifierException if {@code rootId} is not a valid
   *     identifier or {@code snapshotId} not of the form {@code attempt-<64 hex>}
   */
  public Path snapshotPath(String rootId, String snapshotId) {
    return layout.snapshot(rootId, snapshotId);
  }

  @Override
  public ArtifactSnapshot freeze(String rootId, String attemptId, AttemptSubmission submission) {
    return meters.recordFreeze(() -> freezeOnce(rootId, attemptId, submission));
  }

  private ArtifactMeters.Frozen freezeOnce(String rootId, String attemptId, AttemptSubmission submission) {
    checkOpen();
    Identifiers.check("root id", rootId);
    String snapshotId = ArtifactSnapshot.idFor(attemptId);
    Preconditions.checkNotNull(submission, "submission");
    checkWritable("freeze of attempt '" + attemptId + "' of root '" + rootId + "'");
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
          return new ArtifactMeters.Frozen(snapshot, true);
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

  private static ArtifactMeters.Frozen sameOrConflict(ArtifactSnapshot existing, String digest) {
    if (existing.sha256().equals(digest)) {
      return new ArtifactMeters.Frozen(existing, false);
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
  public SnapshotPage list(String rootId, SnapshotCursor cursor, int limit) {
    checkOpen();
    Identifiers.check("root id", rootId);
    Preconditions.checkNotNull(cursor, "cursor");
    Preconditions.checkArgument(limit >= 1 && limit <= MAX_PAGE_SIZE,
        "limit must be between 1 and %s, got %s", MAX_PAGE_SIZE, limit);
    String after = cursor.lastSnapshotId(rootId).orElse(null);
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
    return SnapshotPage.of(rootId, cursor, page, i < ids.size() && !page.isEmpty());
  }

  @Override
  public List<String> rootIds() {
    checkOpen();
    List<String> roots = new ArrayList<>();
    try {
      for (Path dir : FileBlobStore.sorted(layout.attempts())) {
        String rootId = Identifiers.fromDirectoryName("root id", dir.getFileName().toString());
        if (rootId != null && Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)
            && holdsASnapshot(dir)) {
          roots.add(rootId);
        }
      }
    } catch (IOException e) {
      throw new LedgerIOException("listing roots in", layout.attempts(), e);
    }
    roots.sort(null); // directory names encode upper case, so their order is not the ids'
    return roots;
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
      Duration minAge, CleanupMode mode) {
    checkOpen();
    Identifiers.check("root id", rootId);
    Preconditions.checkNotNull(knownAttemptIds, "knownAttemptIds");
    Preconditions.checkNotNull(minAge, "minAge");
    Preconditions.checkArgument(!minAge.isNegative(), "minAge must be zero or positive: %s",
        minAge);
    Preconditions.checkNotNull(mode, "mode");
    checkWritable("orphan cleanup (" + mode + ") of root '" + rootId + "'");
    return new Orphans(this, layout, rootId).cleanup(knownAttemptIds, minAge, mode);
  }

  @Override
  public BlobCollection collectGarbage(Duration grace, CleanupMode mode) {
    BlobCollection result = collector(() -> { }).collect(grace, mode);
    meters.collected(mode, result);
    return result;
  }

  /** What the store records (nothing without a meter registry). */
  ArtifactMeters meters() {
    return meters;
  }

  /**
   * Verifies the whole store: every blob re-hashed against its name (as
   * {@link FileBlobStore#verify()}), then every snapshot file parsed and checked: its digest
   * against its content, its file name against its attempt id, its root against its
   * directory, and every blob it references present. Reads only and takes no lock, so it
   * works on a read-only store and beside writers; a snapshot removed while it is checked is
   * not counted.
   *
   * @return what was found; {@link ArtifactVerification#sound()} if nothing is damaged
   * @throws StoreClosedException if the store is closed
   * @throws LedgerIOException if a directory cannot be listed
   */
  public ArtifactVerification verify() {
    checkOpen();
    BlobVerification blobVerification = blobs.verify();
    SnapshotVerifier snapshots = new SnapshotVerifier(layout);
    snapshots.verify();
    return new ArtifactVerification(blobVerification, snapshots.checked, snapshots.damaged);
  }

  /**
   * Copies this store into {@code target/artifacts} while writers go on putting blobs and
   * freezing snapshots: every snapshot present, then every blob present (published files
   * never change, so no lock is taken and no writer waits; a read-only store can be backed
   * up). Snapshots go first because a snapshot is frozen only after its blobs are
   * published, so each copied snapshot finds its blobs in the copy, which then passes
   * {@link #verify()} (unless an orphan cleanup and a garbage collection removed a
   * snapshot's blob during the backup; the copy's verify names it).
   *
   * <p>{@code target} is a new directory or one holding only a ledger store's backup
   * ({@code FileLedgerStore.backup}, which fills {@code <target>/store.json} and
   * {@code ledgers/}): back up the ledgers, then the artifacts, into one target to copy a
   * base directory holding both. The copy is built in a hidden directory in {@code target}
   * and published by one rename to {@code artifacts} (forced first with {@code SYNC}
   * durability): a backup killed at any step leaves no {@code artifacts} directory, so it
   * never opens as a store. See {@code ArtifactBackup}.
   *
   * @param target the backup's base directory; created if missing
   * @return what was copied
   * @throws LedgerIOException if {@code target/artifacts} exists, or a file cannot be read
   *     or written (nothing is left that opens as a store)
   * @throws NullPointerException if {@code target} is null
   * @throws StoreClosedException if the store is closed
   */
  public ArtifactBackupResult backup(Path target) {
    Preconditions.checkNotNull(target, "target");
    checkOpen();
    Path to = target.toAbsolutePath();
    try {
      return ArtifactBackup.backup(layout, to, sync());
    } catch (IOException e) {
      throw new LedgerIOException("backing up the artifact store to " + to, to, e);
    }
  }

  /** A collector that runs {@code afterMark} between mark and sweep (tests use the hook). */
  BlobCollector collector(Runnable afterMark) {
    checkOpen();
    return new BlobCollector(this, layout, afterMark);
  }

  /** Whether a root directory holds a file named as a snapshot; stops at the first. */
  private static boolean holdsASnapshot(Path rootDirectory) throws IOException {
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(rootDirectory)) {
      for (Path entry : entries) {
        if (StoreLayout.snapshotIdOf(entry.getFileName().toString()) != null) {
          return true;
        }
      }
    } catch (NoSuchFileException e) {
      return false; // removed while we looked
    }
    return false;
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
    checkWritable("taking the store lock"); // never reached: every writer checks first
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

  /** Refuses {@code operation} if the store is read-only. */
  void checkWritable(String operation) {
    if (readOnly) {
      throw new ReadOnlyArtifactStoreException(layout.root().toString(), operation);
    }
  }

  /**
   * Closes the store; later calls throw {@link StoreClosedException}. Idempotent. Releases
   * nothing, since the store holds no file open between calls.
   */
  @Override
  public void close() {
    closed = true;
  }

  /**
   * Describes the store for logs.
   *
   * @return {@code FileArtifactStore[<directory>]}, with {@code read-only} if it is
   */
  @Override
  public String toString() {
    return "FileArtifactStore[" + (readOnly ? "read-only " : "") + layout.root() + "]";
  }
}
