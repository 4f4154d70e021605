package dev.ledger.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.artifacts.ArtifactConflictException;
import dev.ledger.artifacts.ArtifactNotFoundException;
import dev.ledger.artifacts.ArtifactRef;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.ArtifactStore;
import dev.ledger.artifacts.AttemptSubmission;
import dev.ledger.artifacts.BlobCollection;
import dev.ledger.artifacts.BlobNotFoundException;
import dev.ledger.artifacts.BlobStore;
import dev.ledger.artifacts.BlobVerification;
import dev.ledger.artifacts.CleanupMode;
import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.EvidenceRef;
import dev.ledger.artifacts.FileArtifact;
import dev.ledger.artifacts.OrphanCleanup;
import dev.ledger.artifacts.SnapshotContent;
import dev.ledger.artifacts.SnapshotCursor;
import dev.ledger.core.InvalidIdentifierException;
import dev.ledger.core.StoreClosedException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link ArtifactStore} must share. A backend runs it by extending this
 * class and implementing {@link #openStore} and {@link #openReadOnly}. The read-only and
 * listing parts are in {@link ArtifactStoreReadingContract}, which this class extends.
 */
public abstract class ArtifactStoreContractTest extends ArtifactStoreReadingContract {
  /** For subclasses, one per store implementation. */
  protected ArtifactStoreContractTest() {}

  // ------------------------------------------------------------------ blobs

  @Test
  void putReturnsTheSha256OfTheBytesAndOpenReturnsThem() throws IOException {
    byte[] bytes = utf8("hello, blobs");
    ContentId id = store.blobs().put(bytes);
    assertThat(id.hex()).isEqualTo(Sha256.hex(bytes));
    assertThat(id.toString()).isEqualTo("sha256:" + id.hex());
    assertThat(ContentId.parse(id.toString())).isEqualTo(id);
    assertThat(store.blobs().exists(id)).isTrue();
    assertThat(store.blobs().size(id)).isEqualTo(bytes.length);
    assertThat(readAll(store.blobs().open(id))).isEqualTo(bytes);
  }

  @Test
  void bytesStreamAndFileGiveTheSameSingleBlob() throws IOException {
    byte[] bytes = new byte[300_000];
    new java.util.Random(7).nextBytes(bytes);
    Path file = temp.resolve("input.bin");
    Files.write(file, bytes);
    ContentId a = store.blobs().put(bytes);
    ContentId b = store.blobs().put(new ByteArrayInputStream(bytes));
    ContentId c = store.blobs().put(file);
    assertThat(a).isEqualTo(b).isEqualTo(c);
    BlobVerification verification = store.blobs().verify();
    assertThat(verification.checked()).isEqualTo(1);
    assertThat(verification.bytes()).isEqualTo(bytes.length);
    assertThat(verification.sound()).isTrue();
  }

  @Test
  void emptyBlobIsABlob() throws IOException {
    ContentId id = store.blobs().put(new byte[0]);
    assertThat(id.hex())
        .isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assertThat(store.blobs().size(id)).isZero();
    assertThat(readAll(store.blobs().open(id))).isEmpty();
  }

  @Test
  void missingBlobIsNotFound() {
    ContentId id = new ContentId(Sha256.hex("absent"));
    assertThat(store.blobs().exists(id)).isFalse();
    assertThatThrownBy(() -> store.blobs().open(id)).isInstanceOf(BlobNotFoundException.class)
        .hasMessageContaining(id.hex());
    assertThatThrownBy(() -> store.blobs().size(id)).isInstanceOf(BlobNotFoundException.class);
  }

  @Test
  void failingSourcesStoreNothing() {
    assertThatThrownBy(() -> store.blobs().put(temp.resolve("no-such-file")))
        .isInstanceOf(dev.ledger.core.LedgerIOException.class)
        .hasMessageContaining("no-such-file");
    InputStream failing = new InputStream() {
      private int left = 100_000;

      @Override
      public int read() throws IOException {
        if (left-- <= 0) {
          throw new IOException("source failed");
        }
        return 'x';
      }
    };
    assertThatThrownBy(() -> store.blobs().put(failing))
        .isInstanceOf(dev.ledger.core.LedgerIOException.class);
    assertThat(store.blobs().verify().checked()).isZero();
  }

  @Test
  void contentIdsAreValidated() {
    assertThatThrownBy(() -> new ContentId("ABC")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ContentId.parse("md5:00"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ContentId("../".repeat(21) + "a"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // ------------------------------------------------------------------ freeze

  @Test
  void freezeStoresTheNormalizedContent() {
    ContentId blob = store.blobs().put(utf8("report"));
    AttemptSubmission submission = new AttemptSubmission("  all green \n",
        List.of(ArtifactRef.ofBlob("report.txt", "text/plain", blob),
            ArtifactRef.ofUri("ci", null, "https://ci.example/run/1")),
        List.of(EvidenceRef.ofBlob("log", "test log", blob)), List.of());
    ArtifactSnapshot snapshot = store.freeze("root-1", "attempt-1", submission);

    assertThat(snapshot.rootId()).isEqualTo("root-1");
    assertThat(snapshot.attemptId()).isEqualTo("attempt-1");
    assertThat(snapshot.snapshotId()).isEqualTo("attempt-" + Sha256.hex("attempt-1"));
    assertThat(snapshot.summary()).isEqualTo("all green");
    assertThat(snapshot.artifactRefs()).containsExactlyElementsOf(submission.artifactRefs());
    assertThat(snapshot.evidenceRefs()).containsExactlyElementsOf(submission.evidenceRefs());
    assertThat(snapshot.sha256())
        .isEqualTo(Sha256.hex(snapshot.content().canonicalJson()));
    assertThat(snapshot.frozenAt()).isEqualTo(NOW);
    assertThat(new String(snapshot.content().canonicalJson(), StandardCharsets.UTF_8))
        .startsWith("{\"artifactRefs\":[{\"blob\":\"sha256:" + blob.hex() + "\"")
        .endsWith("\"summary\":\"all green\"}");
    assertThat(snapshot.content().blobs()).containsExactly(blob);
  }

  @Test
  void freezingAgainWithTheSameContentReturnsTheExistingSnapshot() {
    ArtifactSnapshot first = store.freeze("root-1", "a-1", submission("done"));
    clock.advance(Duration.ofMinutes(5));
    ArtifactSnapshot again = store.freeze("root-1", "a-1", submission("  done  "));
    assertThat(again).isEqualTo(first);
    assertThat(again.frozenAt()).isEqualTo(NOW);
  }

  @Test
  void freezingAgainWithDifferentContentIsAConflictNamingBothDigests() {
    ArtifactSnapshot first = store.freeze("root-1", "a-1", submission("done"));
    String otherDigest = new SnapshotContent("other", List.of(), List.of()).sha256();
    assertThatThrownBy(() -> store.freeze("root-1", "a-1", submission("other")))
        .isInstanceOfSatisfying(ArtifactConflictException.class, e -> {
          assertThat(e.attemptId()).isEqualTo("a-1");
          assertThat(e.rootId()).isEqualTo("root-1");
          assertThat(e.existingSha256()).isEqualTo(first.sha256());
          assertThat(e.attemptedSha256()).isEqualTo(otherDigest);
          assertThat(e.getMessage()).contains("a-1", first.sha256(), otherDigest);
        });
    assertThat(store.getForAttempt("root-1", "a-1")).contains(first);
  }

  @Test
  void referenceOrderMatters() {
    ContentId x = store.blobs().put(utf8("x"));
    ContentId y = store.blobs().put(utf8("y"));
    store.freeze("root-1", "a-1", submission("s", x, y));
    assertThatThrownBy(() -> store.freeze("root-1", "a-1", submission("s", y, x)))
        .isInstanceOf(ArtifactConflictException.class);
  }

  @Test
  void racingThreadsSeeOneWinningContent() throws Exception {
    int threads = 8;
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(threads);
    try {
      java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
      List<java.util.concurrent.Future<String>> results = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        String summary = "racer " + (i % 3);
        results.add(pool.submit(() -> {
          go.await();
          try {
            return store.freeze("root-1", "raced", submission(summary)).sha256();
          } catch (ArtifactConflictException e) {
            return "conflict with " + e.existingSha256();
          }
        }));
      }
      go.countDown();
      List<String> seen = new ArrayList<>();
      for (java.util.concurrent.Future<String> result : results) {
        seen.add(result.get(60, java.util.concurrent.TimeUnit.SECONDS));
      }
      String winner = store.getForAttempt("root-1", "raced").orElseThrow().sha256();
      assertThat(seen).contains(winner)
          .allMatch(s -> s.equals(winner) || s.equals("conflict with " + winner));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void freezeStoresSubmittedFilesAsBlobsFirst() throws IOException {
    Path file = temp.resolve("out.txt");
    Files.writeString(file, "produced by the attempt");
    AttemptSubmission submission = AttemptSubmission.of("with file", List.of(), List.of())
        .withFile(new FileArtifact("out.txt", "text/plain", file));
    ArtifactSnapshot snapshot = store.freeze("root-1", "a-1", submission);
    ContentId id = new ContentId(Sha256.hex(utf8("produced by the attempt")));
    assertThat(snapshot.artifactRefs())
        .containsExactly(ArtifactRef.ofBlob("out.txt", "text/plain", id));
    assertThat(readAll(store.blobs().open(id))).isEqualTo(utf8("produced by the attempt"));
    assertThat(store.freeze("root-1", "a-1", submission)).isEqualTo(snapshot);
  }

  @Test
  void freezeReferencingAMissingBlobIsRefusedAndFreezesNothing() {
    ContentId missing = new ContentId(Sha256.hex("never stored"));
    assertThatThrownBy(() -> store.freeze("root-1", "a-1", submission("s", missing)))
        .isInstanceOfSatisfying(BlobNotFoundException.class,
            e -> assertThat(e.id()).isEqualTo(missing));
    assertThat(store.getForAttempt("root-1", "a-1")).isEmpty();
    assertThat(store.list("root-1", SnapshotCursor.START, 10).snapshots()).isEmpty();
  }

  @Test
  void invalidIdentifiersAreRefused() {
    for (String bad : new String[] {"", "../x", "a/b", ".hidden", "-x", "a b", "x".repeat(129),
        "CON", "nul.txt", "Com1.tar.gz", "run.", "a..b"}) {
      assertThatThrownBy(() -> store.freeze(bad, "a-1", submission("s")))
          .isInstanceOf(InvalidIdentifierException.class);
      assertThatThrownBy(() -> store.freeze("root-1", bad, submission("s")))
          .isInstanceOf(InvalidIdentifierException.class);
      assertThatThrownBy(() -> store.getForAttempt("root-1", bad))
          .isInstanceOf(InvalidIdentifierException.class);
      assertThatThrownBy(() -> store.list(bad, SnapshotCursor.START, 1))
          .isInstanceOf(InvalidIdentifierException.class);
    }
    for (String bad : new String[] {"attempt-../../x", "x.json", "attempt-" + "A".repeat(64)}) {
      assertThatThrownBy(() -> store.get("root-1", bad))
          .isInstanceOf(InvalidIdentifierException.class);
    }
    assertThat(store.list("root-1", SnapshotCursor.START, 10).snapshots()).isEmpty();
  }

  @Test
  void attemptIdsOfAnyCaseAndLengthWork() {
    String longId = "A" + "b".repeat(127);
    store.freeze("Root-1", longId, submission("long"));
    store.freeze("root-1", longId, submission("other root"));
    assertThat(store.getForAttempt("Root-1", longId).orElseThrow().summary()).isEqualTo("long");
    assertThat(store.getForAttempt("root-1", longId).orElseThrow().summary())
        .isEqualTo("other root");
  }

  // ------------------------------------------------------------------ read

  @Test
  void getFindsBySnapshotIdAndMissingIsNotFound() {
    ArtifactSnapshot snapshot = store.freeze("root-1", "a-1", submission("s"));
    assertThat(store.get("root-1", snapshot.snapshotId())).isEqualTo(snapshot);
    assertThat(store.getForAttempt("root-1", "a-1")).contains(snapshot);
    assertThat(store.getForAttempt("root-1", "a-2")).isEmpty();
    assertThat(store.getForAttempt("root-2", "a-1")).isEmpty();
    String absent = ArtifactSnapshot.idFor("a-2");
    assertThatThrownBy(() -> store.get("root-1", absent))
        .isInstanceOf(ArtifactNotFoundException.class).hasMessageContaining(absent);
  }

  // ------------------------------------------------------------------ orphans

  @Test
  void orphansAreSnapshotsOfUnknownAttempts() {
    store.freeze("root-1", "keep", submission("k"));
    ArtifactSnapshot orphan = store.freeze("root-1", "gone", submission("g"));
    assertThat(store.listOrphans("root-1", Set.of("keep"))).containsExactly(orphan);
    assertThat(store.listOrphans("root-1", Set.of("keep", "gone"))).isEmpty();
  }

  @Test
  void dryRunCleanupListsWithoutDeleting() {
    store.freeze("root-1", "keep", submission("k"));
    ArtifactSnapshot orphan = store.freeze("root-1", "gone", submission("g"));
    OrphanCleanup dry = store.cleanupOrphans("root-1", Set.of("keep"), Duration.ZERO,
        CleanupMode.DRY_RUN);
    assertThat(dry.mode()).isEqualTo(CleanupMode.DRY_RUN);
    assertThat(dry.removed()).containsExactly(orphan.snapshotId());
    assertThat(store.getForAttempt("root-1", "gone")).contains(orphan);

    OrphanCleanup real = store.cleanupOrphans("root-1", Set.of("keep"), Duration.ZERO,
        CleanupMode.DELETE);
    assertThat(real.mode()).isEqualTo(CleanupMode.DELETE);
    assertThat(real.removed()).containsExactly(orphan.snapshotId());
    assertThat(store.getForAttempt("root-1", "gone")).isEmpty();
    assertThat(store.getForAttempt("root-1", "keep")).isPresent();
  }

  @Test
  void cleanupRespectsTheMinimumAge() {
    ArtifactSnapshot old = store.freeze("root-1", "old", submission("o"));
    clock.advance(Duration.ofMinutes(30));
    ArtifactSnapshot young = store.freeze("root-1", "young", submission("y"));
    clock.advance(Duration.ofMinutes(30));
    OrphanCleanup cleanup = store.cleanupOrphans("root-1", Set.of(), Duration.ofHours(1),
        CleanupMode.DELETE);
    assertThat(cleanup.removed()).containsExactly(old.snapshotId());
    assertThat(cleanup.tooYoung()).containsExactly(young.snapshotId());
    assertThat(store.getForAttempt("root-1", "young")).contains(young);
    assertThat(store.getForAttempt("root-1", "old")).isEmpty();
  }

  @Test
  void cleanupArgumentsAreCheckedBeforeAnythingIsRemoved() {
    store.freeze("root-1", "gone", submission("g"));
    assertThatThrownBy(() -> store.cleanupOrphans("root-1", Set.of(), Duration.ZERO, null))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> store.cleanupOrphans("root-1", Set.of(), Duration.ofSeconds(-1),
        CleanupMode.DELETE)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT-1S");
    assertThatThrownBy(() -> store.cleanupOrphans("root-1", null, Duration.ZERO,
        CleanupMode.DELETE)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> store.cleanupOrphans("../x", Set.of(), Duration.ZERO,
        CleanupMode.DELETE)).isInstanceOf(InvalidIdentifierException.class);
    assertThat(store.getForAttempt("root-1", "gone")).isPresent();
    ContentId blob = store.blobs().put(utf8("unreferenced"));
    clock.advance(Duration.ofDays(1));
    assertThatThrownBy(() -> store.collectGarbage(Duration.ZERO, null))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> store.collectGarbage(Duration.ofSeconds(-1), CleanupMode.DELETE))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT-1S");
    assertThat(store.blobs().exists(blob)).isTrue();
  }

  // ------------------------------------------------------------------ garbage collection

  @Test
  void collectionRemovesOnlyUnreferencedBlobsOlderThanTheGracePeriod() {
    ContentId referenced = store.blobs().put(utf8("referenced"));
    ContentId old = store.blobs().put(utf8("old and unreferenced"));
    store.freeze("root-1", "a-1", submission("s", referenced));
    clock.advance(Duration.ofHours(2));
    ContentId fresh = store.blobs().put(utf8("fresh and unreferenced"));
    clock.advance(Duration.ofMinutes(30));

    BlobCollection dry = store.collectGarbage(Duration.ofHours(1), CleanupMode.DRY_RUN);
    assertThat(dry.removed()).containsExactly(old);
    assertThat(dry.bytesRemoved()).isEqualTo(utf8("old and unreferenced").length);
    assertThat(dry.referenced()).isEqualTo(1);
    assertThat(dry.withinGrace()).isEqualTo(1);
    assertThat(dry.mode()).isEqualTo(CleanupMode.DRY_RUN);
    assertThat(store.blobs().exists(old)).isTrue();

    BlobCollection real = store.collectGarbage(Duration.ofHours(1), CleanupMode.DELETE);
    assertThat(real.removed()).containsExactly(old);
    assertThat(real.mode()).isEqualTo(CleanupMode.DELETE);
    assertThat(store.blobs().exists(old)).isFalse();
    assertThat(store.blobs().exists(referenced)).isTrue();
    assertThat(store.blobs().exists(fresh)).isTrue();
  }

  @Test
  void puttingABlobAgainRenewsItsAge() {
    ContentId id = store.blobs().put(utf8("again"));
    clock.advance(Duration.ofHours(2));
    store.blobs().put(utf8("again"));
    assertThat(store.collectGarbage(Duration.ofHours(1), CleanupMode.DELETE).removed()).isEmpty();
    clock.advance(Duration.ofHours(2));
    assertThat(store.collectGarbage(Duration.ofHours(1), CleanupMode.DELETE).removed())
        .containsExactly(id);
  }

  @Test
  void blobsOfRemovedOrphansBecomeCollectable() {
    ContentId blob = store.blobs().put(utf8("orphaned"));
    store.freeze("root-1", "gone", submission("g", blob));
    clock.advance(Duration.ofDays(1));
    assertThat(store.collectGarbage(Duration.ofHours(1), CleanupMode.DELETE).removed()).isEmpty();
    store.cleanupOrphans("root-1", Set.of(), Duration.ZERO, CleanupMode.DELETE);
    assertThat(store.collectGarbage(Duration.ofHours(1), CleanupMode.DELETE).removed())
        .containsExactly(blob);
  }

  // ------------------------------------------------------------------ lifecycle

  @Test
  void closedStoreRefusesEverything() {
    ContentId id = store.blobs().put(utf8("x"));
    BlobStore blobs = store.blobs();
    store.close();
    store.close();
    assertThatThrownBy(() -> store.freeze("root-1", "a", submission("s")))
        .isInstanceOf(StoreClosedException.class);
    assertThatThrownBy(() -> store.getForAttempt("root-1", "a"))
        .isInstanceOf(StoreClosedException.class);
    assertThatThrownBy(() -> blobs.put(utf8("y"))).isInstanceOf(StoreClosedException.class);
    assertThatThrownBy(() -> blobs.open(id)).isInstanceOf(StoreClosedException.class);
    assertThatThrownBy(() -> store.collectGarbage(Duration.ZERO, CleanupMode.DRY_RUN))
        .isInstanceOf(StoreClosedException.class);
    assertThatThrownBy(() -> store.cleanupOrphans("root-1", Set.of(), Duration.ZERO,
        CleanupMode.DRY_RUN)).isInstanceOf(StoreClosedException.class);
    assertThatThrownBy(() -> store.list("root-1", SnapshotCursor.START, 1))
        .isInstanceOf(StoreClosedException.class);
    assertThatThrownBy(store::rootIds).isInstanceOf(StoreClosedException.class);
    assertThatThrownBy(store::blobs).isInstanceOf(StoreClosedException.class);
  }
}
