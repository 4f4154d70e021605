package dev.ledger.artifacts.memory;

import com.google.common.base.Preconditions;
import dev.ledger.artifacts.ArtifactConflictException;
import dev.ledger.artifacts.ArtifactNotFoundException;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.ArtifactStore;
import dev.ledger.artifacts.AttemptSubmission;
import dev.ledger.artifacts.BlobCollection;
import dev.ledger.artifacts.BlobNotFoundException;
import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.OrphanCleanup;
import dev.ledger.artifacts.SnapshotContent;
import dev.ledger.artifacts.SnapshotPage;
import dev.ledger.core.StoreClosedException;
import dev.ledger.core.internal.io.Identifiers;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * An {@link ArtifactStore} in memory, with the same contract as the file store (it runs the
 * same contract suite): for tests. Nothing survives the instance. One monitor guards all
 * state, so every operation is atomic; files of a submission are read before it is taken.
 */
public final class InMemoryArtifactStore implements ArtifactStore {
  private final Clock clock;
  private final InMemoryBlobStore blobs = new InMemoryBlobStore(this);
  private final Map<String, TreeMap<String, ArtifactSnapshot>> roots = new HashMap<>();
  private volatile boolean closed;

  /** Creates an empty store stamping snapshots and blob ages with {@code clock}. */
  public InMemoryArtifactStore(Clock clock) {
    this.clock = Preconditions.checkNotNull(clock, "clock");
  }

  /** Creates an empty store on the UTC system clock. */
  public InMemoryArtifactStore() {
    this(Clock.systemUTC());
  }

  @Override
  public InMemoryBlobStore blobs() {
    checkOpen();
    return blobs;
  }

  @Override
  public ArtifactSnapshot freeze(String rootId, String attemptId, AttemptSubmission submission) {
    checkOpen();
    Identifiers.check("root id", rootId);
    String snapshotId = ArtifactSnapshot.idFor(attemptId);
    Preconditions.checkNotNull(submission, "submission");
    SnapshotContent content = SnapshotContent.normalize(submission, blobs);
    synchronized (this) {
      checkOpen();
      ArtifactSnapshot existing = snapshots(rootId).get(snapshotId);
      if (existing != null) {
        if (existing.sha256().equals(content.sha256())) {
          return existing;
        }
        throw new ArtifactConflictException(rootId, attemptId, existing.sha256(),
            content.sha256());
      }
      for (ContentId id : content.blobs()) {
        if (!blobs.entries().containsKey(id)) {
          throw new BlobNotFoundException(id, null);
        }
      }
      ArtifactSnapshot snapshot = ArtifactSnapshot.of(rootId, attemptId, content, now());
      roots.computeIfAbsent(rootId, r -> new TreeMap<>()).put(snapshotId, snapshot);
      return snapshot;
    }
  }

  @Override
  public synchronized ArtifactSnapshot get(String rootId, String snapshotId) {
    checkOpen();
    Identifiers.check("root id", rootId);
    ArtifactSnapshot.checkId(snapshotId);
    ArtifactSnapshot snapshot = snapshots(rootId).get(snapshotId);
    if (snapshot == null) {
      throw new ArtifactNotFoundException(rootId, snapshotId);
    }
    return snapshot;
  }

  @Override
  public synchronized Optional<ArtifactSnapshot> getForAttempt(String rootId, String attemptId) {
    checkOpen();
    Identifiers.check("root id", rootId);
    return Optional.ofNullable(snapshots(rootId).get(ArtifactSnapshot.idFor(attemptId)));
  }

  @Override
  public synchronized SnapshotPage list(String rootId, String after, int limit) {
    checkOpen();
    Identifiers.check("root id", rootId);
    Preconditions.checkArgument(limit >= 1, "limit must be at least 1: %s", limit);
    TreeMap<String, ArtifactSnapshot> all = snapshots(rootId);
    Map<String, ArtifactSnapshot> tail = after == null ? all
        : all.tailMap(ArtifactSnapshot.checkId(after), false);
    List<ArtifactSnapshot> page = new ArrayList<>();
    Iterator<ArtifactSnapshot> it = tail.values().iterator();
    while (it.hasNext() && page.size() < limit) {
      page.add(it.next());
    }
    return new SnapshotPage(page, it.hasNext()
        ? Optional.of(page.get(page.size() - 1).snapshotId()) : Optional.empty());
  }

  @Override
  public synchronized List<ArtifactSnapshot> listOrphans(String rootId,
      Set<String> knownAttemptIds) {
    checkOpen();
    Identifiers.check("root id", rootId);
    Preconditions.checkNotNull(knownAttemptIds, "knownAttemptIds");
    return snapshots(rootId).values().stream()
        .filter(s -> !knownAttemptIds.contains(s.attemptId())).toList();
  }

  @Override
  public synchronized OrphanCleanup cleanupOrphans(String rootId, Set<String> knownAttemptIds,
      Duration minAge, boolean dryRun) {
    checkOpen();
    Identifiers.check("root id", rootId);
    Preconditions.checkNotNull(knownAttemptIds, "knownAttemptIds");
    Preconditions.checkNotNull(minAge, "minAge");
    Preconditions.checkArgument(!minAge.isNegative(), "minAge must be zero or positive: %s",
        minAge);
    List<String> remove = new ArrayList<>();
    List<String> tooYoung = new ArrayList<>();
    Instant now = now();
    for (ArtifactSnapshot orphan : listOrphans(rootId, knownAttemptIds)) {
      if (Duration.between(orphan.frozenAt(), now).compareTo(minAge) >= 0) {
        remove.add(orphan.snapshotId());
      } else {
        tooYoung.add(orphan.snapshotId());
      }
    }
    if (!dryRun) {
      remove.forEach(snapshots(rootId)::remove);
    }
    return new OrphanCleanup(remove, tooYoung, dryRun);
  }

  @Override
  public synchronized BlobCollection collectGarbage(Duration grace, boolean dryRun) {
    checkOpen();
    Preconditions.checkNotNull(grace, "grace");
    Preconditions.checkArgument(!grace.isNegative(), "grace must be zero or positive: %s",
        grace);
    Set<ContentId> referenced = new HashSet<>();
    roots.values().forEach(m -> m.values().forEach(s -> referenced.addAll(s.content().blobs())));
    Instant cutoff = now().minus(grace);
    List<ContentId> removed = new ArrayList<>();
    long bytes = 0;
    int young = 0;
    for (Map.Entry<ContentId, InMemoryBlobStore.Entry> e : blobs.entries().entrySet()) {
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
    if (!dryRun) {
      removed.forEach(blobs.entries()::remove);
    }
    return new BlobCollection(removed, bytes, referenced.size(), young, dryRun);
  }

  private TreeMap<String, ArtifactSnapshot> snapshots(String rootId) {
    return roots.getOrDefault(rootId, new TreeMap<>());
  }

  Instant now() {
    return clock.instant();
  }

  void checkOpen() {
    if (closed) {
      throw new StoreClosedException("in-memory artifact store");
    }
  }

  /** Closes the store; later calls throw {@link StoreClosedException}. Idempotent. */
  @Override
  public void close() {
    closed = true;
  }
}
