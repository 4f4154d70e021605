package dev.ledger.artifacts.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.ledger.artifacts.ArtifactRef;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.AttemptSubmission;
import dev.ledger.artifacts.BlobCollection;
import dev.ledger.artifacts.BlobNotFoundException;
import dev.ledger.artifacts.CleanupMode;
import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.FileArtifact;
import dev.ledger.testing.base.MutableClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A freeze that lands while a collection is between its mark and its sweep: it waits for the
 * collection, and never leaves a snapshot that references a deleted blob.
 */
class BlobCollectorTest {
  private static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");
  private static final Duration GRACE = Duration.ofHours(1);
  private static final byte[] BYTES = "old, unreferenced, about to be used"
      .getBytes(StandardCharsets.UTF_8);

  @TempDir
  Path dir;

  private final MutableClock clock = new MutableClock(NOW);

  /** Waits (with a deadline, no sleeping) until {@code thread} blocks on the store lock. */
  private static void awaitBlocked(AtomicReference<Thread> thread) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (thread.get() == null || thread.get().getState() != Thread.State.TIMED_WAITING) {
      if (System.nanoTime() > deadline) {
        fail("the freeze never blocked on the store lock");
      }
      Thread.onSpinWait();
    }
  }

  private ContentId oldBlob(FileArtifactStore store) throws IOException {
    ContentId id = store.blobs().put(BYTES);
    Files.setLastModifiedTime(store.blobs().path(id),
        FileTime.from(NOW.minus(GRACE.multipliedBy(3))));
    return id;
  }

  @Test
  void blobPutByAFreezeLandingDuringCollectionSurvives() throws Exception {
    Path file = dir.resolve("result.txt");
    Files.write(file, BYTES);
    try (FileArtifactStore store = FileArtifactStore.open(dir.resolve("store"),
        FileArtifactStoreTest.options(clock))) {
      ContentId id = oldBlob(store);
      AtomicReference<Thread> freezer = new AtomicReference<>();
      AtomicReference<CompletableFuture<ArtifactSnapshot>> freeze = new AtomicReference<>();
      BlobCollection collection = store.collector(() -> {
        freeze.set(CompletableFuture.supplyAsync(() -> {
          freezer.set(Thread.currentThread());
          return store.freeze("root-1", "a-1", AttemptSubmission.of("uses the old blob",
              List.of(), List.of()).withFile(new FileArtifact("result.txt", null, file)));
        }));
        awaitBlocked(freezer);
      }).collect(GRACE, CleanupMode.DELETE);

      ArtifactSnapshot snapshot = freeze.get().get(20, TimeUnit.SECONDS);
      assertThat(collection.removed()).containsExactly(id); // it was garbage at mark time
      assertThat(snapshot.artifactRefs()).containsExactly(ArtifactRef.ofBlob("result.txt",
          null, id));
      assertThat(store.blobs().exists(id)).isTrue(); // the freeze's put published it again
      assertThat(store.blobs().open(id).readAllBytes()).isEqualTo(BYTES);
      assertThat(store.collectGarbage(Duration.ZERO, CleanupMode.DELETE).removed()).isEmpty();
      assertThat(store.blobs().verify().sound()).isTrue();
    }
  }

  @Test
  void freezeReferencingACollectedBlobByIdFailsAndFreezesNothing() throws Exception {
    try (FileArtifactStore store = FileArtifactStore.open(dir.resolve("store"),
        FileArtifactStoreTest.options(clock))) {
      ContentId id = oldBlob(store);
      AtomicReference<Thread> freezer = new AtomicReference<>();
      AtomicReference<CompletableFuture<ArtifactSnapshot>> freeze = new AtomicReference<>();
      store.collector(() -> {
        freeze.set(CompletableFuture.supplyAsync(() -> {
          freezer.set(Thread.currentThread());
          return store.freeze("root-1", "a-1", AttemptSubmission.of("by id",
              List.of(ArtifactRef.ofBlob("old", null, id)), List.of()));
        }));
        awaitBlocked(freezer);
      }).collect(GRACE, CleanupMode.DELETE);

      try {
        freeze.get().get(20, TimeUnit.SECONDS);
        fail("the freeze should have found its blob collected");
      } catch (ExecutionException e) {
        assertThat(e.getCause()).isInstanceOf(BlobNotFoundException.class);
      }
      assertThat(store.getForAttempt("root-1", "a-1")).isEmpty();
    }
  }

  @Test
  void freezeBeforeTheMarkKeepsItsBlobs() throws Exception {
    try (FileArtifactStore store = FileArtifactStore.open(dir.resolve("store"),
        FileArtifactStoreTest.options(clock))) {
      ContentId id = oldBlob(store);
      store.freeze("root-1", "a-1", AttemptSubmission.of("s",
          List.of(ArtifactRef.ofBlob("old", null, id)), List.of()));
      BlobCollection collection = store.collectGarbage(Duration.ZERO, CleanupMode.DELETE);
      assertThat(collection.removed()).isEmpty();
      assertThat(collection.referenced()).isEqualTo(1);
      assertThat(store.blobs().exists(id)).isTrue();
    }
  }
}
