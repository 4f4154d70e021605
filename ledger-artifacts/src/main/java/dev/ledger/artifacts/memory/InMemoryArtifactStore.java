package dev.ledger.artifacts.memory;

import com.google.common.base.Preconditions;
import dev.ledger.artifacts.internal.ArtifactMeters;
import dev.ledger.artifacts.ArtifactConflictException;
import dev.ledger.artifacts.ArtifactNotFoundException;
import dev.ledger.artifacts.ArtifactOptions;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.ArtifactStore;
import dev.ledger.artifacts.AttemptSubmission;
import dev.ledger.artifacts.BlobCollection;
import dev.ledger.artifacts.BlobNotFoundException;
import dev.ledger.artifacts.CleanupMode;
import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.OrphanCleanup;
import dev.ledger.artifacts.ReadOnlyArtifactStoreException;
import dev.ledger.artifacts.SnapshotContent;
import dev.ledger.artifacts.SnapshotCursor;
import dev.ledger.artifacts.SnapshotPage;
import dev.ledger.core.StoreClosedException;
import dev.ledger.core.internal.io.Identifiers;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An {@link ArtifactStore} in memory, for tests that need no disk. It keeps the same contract
 * as the file store (it runs the same contract suite), stamps snapshots and blob puts with the
 * options' clock, and ignores their durability and lock timeout (nothing is forced, no other
 * process shares it). Nothing survives the instance.
 *
 * <p>{@link #readOnlyView()} gives a read-only store over the same contents, for testing code
 * that must only read (a replay tool, a report), as {@code FileArtifactStore.openReadOnly}
 * does for a directory.
 *
 * <p>Thread-safe: one monitor guards all contents, so every operation is atomic; files of a
 * submission and streams of a put are read before it is taken.
 */
public final class InMemoryArtifactStore implements ArtifactStore {
  private static final AtomicLong NUMBER = new AtomicLong();

  private final String name;
  private final ArtifactOptions options;
  private final MemoryContents contents;
  private final InMemoryArtifactStore parent;
  private final InMemoryBlobStore blobs;
  private volatile boolean closed;
  /** What the store records; {@link ArtifactMeters#NONE} without a meter registry. */
  private final ArtifactMeters meters;

  private InMemoryArtifactStore(String name, ArtifactOptions options, MemoryContents contents,
      InMemoryArtifactStore parent) {
    this.name = name;
    this.options = options;
    this.contents = contents;
    this.parent = parent;
    this.meters = parent != null ? ArtifactMeters.NONE
        : ArtifactMeters.of(options.meterRegistry());
    this.blobs = new InMemoryBlobStore(this, contents);
  }

  /**
   * A new, empty store with default options (the UTC system clock).
   *
   * @return the store
   */
  public static InMemoryArtifactStore create() {
    return create(ArtifactOptions.defaults());
  }

  /**
   * A new, empty store; of the options only the clock matters here.
   *
   * @param options the options; their clock stamps snapshots and blob puts and measures ages
   * @return the store
   * @throws NullPointerException if {@code options} is null
   */
  public static InMemoryArtifactStore create(ArtifactOptions options) {
    Preconditions.checkNotNull(options, "options");
    return new InMemoryArtifactStore("in-memory #" + NUMBER.incrementAndGet(), options,
        new MemoryContents(), null);
  }

  /**
   * A read-only store over this store's contents: it sees every write made through this
   * store, at once, and refuses every write of its own (blob puts, freezes, orphan cleanups
   * and garbage collections, dry runs included) with {@link ReadOnlyArtifactStoreException}.
   * Closing the view leaves this store open; closing this store closes its views.
   *
   * @return the view, with this store's options
   * @throws StoreClosedException if this store is closed
   */
  public InMemoryArtifactStore readOnlyView() {
    checkOpen();
    return parent != null ? new InMemoryArtifactStore(name, options, contents, parent)
        : new InMemoryArtifactStore(name + " (read-only view)", options, contents, this);
  }

  /**
   * Whether this store is a {@linkplain #readOnlyView() read-only view}.
   *
   * @return true if every write is refused
   */
  public boolean readOnly() {
    return parent != null;
  }

  @Override
  public ArtifactOptions options() {
    return options;
  }

  @Override
  public InMemoryBlobStore blobs() {
    checkOpen();
    return blobs;
  }

  @Override
  public ArtifactSnapshot freeze(String rootId, String attemptId, AttemptSubmission submission) {
    return meters.recordFreeze(() -> freezeOnce(rootId, attemptId, submission));
  }

  /** Freezes, and says whether a snapshot was stored or found with the same content. */
  private ArtifactMeters.Frozen freezeOnce(String rootId, String attemptId,
      AttemptSubmission submission) {
    checkOpen();
    Identifiers.check("root id", rootId);
    String snapshotId = ArtifactSnapshot.idFor(attemptId);
    Preconditions.checkNotNull(submission, "submission");
    checkWritable("freeze of attempt '" + attemptId + "' of root '" + rootId + "'");
    SnapshotContent content = SnapshotContent.normalize(submission, blobs);
    synchronized (contents) {
      checkOpen();
      ArtifactSnapshot existing = contents.snapshots(rootId).get(snapshotId);
      if (existing != null) {
        if (existing.sha256().equals(content.sha256())) {
          return new ArtifactMeters.Frozen(existing, false);
        }
        throw new ArtifactConflictException(rootId, attemptId, existing.sha256(),
            content.sha256());
      }
      for (ContentId id : content.blobs()) {
        if (!contents.blobs.containsKey(id)) {
          throw new BlobNotFoundException(id, null);
        }
      }
      ArtifactSnapshot snapshot = ArtifactSnapshot.of(rootId, attemptId, content, now());
      contents.roots.computeIfAbsent(rootId, r -> new TreeMap<>()).put(snapshotId, snapshot);
      return new ArtifactMeters.Frozen(snapshot, true);
    }
  }

  @Override
  public ArtifactSnapshot get(String rootId, String snapshotId) {
    checkOpen();
    Identifiers.check("root id", rootId);
    ArtifactSnapshot.checkId(snapshotId);
    synchronized (contents) {
      checkOpen();
      ArtifactSnapshot snapshot = contents.snapshots(rootId).get(snapshotId);
      if (snapshot == null) {
        throw new ArtifactNotFoundException(rootId, snapshotId);
      }
      return snapshot;
    }
  }

  @Override
  public Optional<ArtifactSnapshot> getForAttempt(String rootId, String attemptId) {
    checkOpen();
    Identifiers.check("root id", rootId);
    String snapshotId = ArtifactSnapshot.idFor(attemptId);
    synchronized (contents) {
      checkOpen();
      return Optional.ofNullable(contents.snapshots(rootId).get(snapshotId));
    }
  }

  @Override
  public SnapshotPage list(String rootId, SnapshotCursor cursor, int limit) {
    checkOpen();
    Identifiers.check("root id", rootId);
    Preconditions.checkNotNull(cursor, "cursor");
    Preconditions.checkArgument(limit >= 1 && limit <= MAX_PAGE_SIZE,
        "limit must be between 1 and %s, got %s", MAX_PAGE_SIZE, limit);
    String after = cursor.lastSnapshotId(rootId).orElse(null);
    synchronized (contents) {
      checkOpen();
      TreeMap<String, ArtifactSnapshot> all = contents.snapshots(rootId);
      Map<String, ArtifactSnapshot> tail = after == null ? all : all.tailMap(after, false);
      List<ArtifactSnapshot> page = new ArrayList<>();
      Iterator<ArtifactSnapshot> it = tail.values().iterator();
      while (it.hasNext() && page.size() < limit) {
        page.add(it.next());
      }
      return SnapshotPage.of(rootId, cursor, page, it.hasNext());
    }
  }

  @Override
  public List<String> rootIds() {
    checkOpen();
    synchronized (contents) {
      checkOpen();
      return contents.roots.entrySet().stream().filter(e -> !e.getValue().isEmpty())
          .map(Map.Entry::getKey).sorted().toList();
    }
  }

  @Override
  public List<ArtifactSnapshot> listOrphans(String rootId, Set<String> knownAttemptIds) {
    checkOpen();
    Identifiers.check("root id", rootId);
    Preconditions.checkNotNull(knownAttemptIds, "knownAttemptIds");
    synchronized (contents) {
      checkOpen();
      return orphans(rootId, knownAttemptIds);
    }
  }

  private List<ArtifactSnapshot> orphans(String rootId, Set<String> knownAttemptIds) {
    return contents.snapshots(rootId).values().stream()
        .filter(s -> !knownAttemptIds.contains(s.attemptId())).toList();
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
    synchronized (contents) {
      checkOpen();
      List<String> remove = new ArrayList<>();
      List<String> tooYoung = new ArrayList<>();
      Instant now = now();
      for (ArtifactSnapshot orphan : orphans(rootId, knownAttemptIds)) {
        if (Duration.between(orphan.frozenAt(), now).compareTo(minAge) >= 0) {
          remove.add(orphan.snapshotId());
        } else {
          tooYoung.add(orphan.snapshotId());
        }
      }
      if (mode == CleanupMode.DELETE) {
        remove.forEach(contents.snapshots(rootId)::remove);
      }
      return new OrphanCleanup(remove, tooYoung, mode);
    }
  }

  @Override
  public BlobCollection collectGarbage(Duration grace, CleanupMode mode) {
    BlobCollection result = collect(grace, mode);
    meters.collected(mode, result);
    return result;
  }

  /** What the store records (nothing without a meter registry, nor in a read-only view). */
  ArtifactMeters meters() {
    return meters;
  }

  private BlobCollection collect(Duration grace, CleanupMode mode) {
    checkOpen();
    Preconditions.checkNotNull(grace, "grace");
    Preconditions.checkArgument(!grace.isNegative(), "grace must be zero or positive: %s",
        grace);
    Preconditions.checkNotNull(mode, "mode");
    checkWritable("garbage collection (" + mode + ")");
    synchronized (contents) {
      checkOpen();
      Set<ContentId> referenced = new HashSet<>();
      contents.roots.values()
          .forEach(m -> m.values().forEach(s -> referenced.addAll(s.content().blobs())));
      Instant cutoff = now().minus(grace);
      List<ContentId> removed = new ArrayList<>();
      long bytes = 0;
      int young = 0;
      for (Map.Entry<ContentId, MemoryContents.Entry> e : contents.blobs.entrySet()) {
        if (referenced.contains(e.getKey())) {
          continue;
        }
        if (e.getValue().lastPut().isAfter(cutoff)) {
          young++;
        } else {
          removed.add(e.getKey());
          bytes += e.getValue().bytes().length;
        }
      }
      if (mode == CleanupMode.DELETE) {
        removed.forEach(contents.blobs::remove);
      }
      return new BlobCollection(removed, bytes, referenced.size(), young, mode);
    }
  }

  Instant now() {
    return options.clock().instant();
  }

  void checkOpen() {
    if (closed || (parent != null && parent.closed)) {
      throw new StoreClosedException("artifact store " + name);
    }
  }

  void checkWritable(String operation) {
    if (readOnly()) {
      throw new ReadOnlyArtifactStoreException(name, operation);
    }
  }

  /**
   * Closes the store (or this view); later calls throw {@link StoreClosedException}, and so
   * do calls to the views of a closed store. Idempotent.
   */
  @Override
  public void close() {
    closed = true;
  }

  /**
   * Describes the store for logs.
   *
   * @return {@code InMemoryArtifactStore[in-memory #<n>]}, marking a read-only view
   */
  @Override
  public String toString() {
    return "InMemoryArtifactStore[" + name + "]";
  }
}
