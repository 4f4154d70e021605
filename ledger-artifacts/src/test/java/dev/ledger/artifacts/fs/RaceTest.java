package dev.ledger.artifacts.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.artifacts.ArtifactConflictException;
import dev.ledger.artifacts.ArtifactRef;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.AttemptSubmission;
import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.SnapshotCursor;
import dev.ledger.testing.base.ChildJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Eight threads of this JVM and two child JVMs race on one store directory: freezing one
 * attempt with the same content, with different content, and putting the same blob. One
 * file, one winner, every racer sees the winner, no temp file left.
 */
class RaceTest {
  private static final int THREADS = 8;
  private static final int CHILDREN = 2;
  private static final String ROOT = "race-root";
  private static final String ATTEMPT = "attempt-under-race";
  private static final Duration DEADLINE = Duration.ofSeconds(60);

  @TempDir
  Path dir;

  /** One racer's operation; also run by {@link RaceChild} in child JVMs. */
  static String race(FileArtifactStore store, String mode, int racer, ContentId blob) {
    switch (mode) {
      case "put":
        return RaceChild.outcome(store.blobs().put(RaceChild.racedBytes()));
      case "freeze-same":
      case "freeze-different":
        String summary = mode.equals("freeze-same") ? "same result" : "racer " + racer;
        AttemptSubmission submission = AttemptSubmission.of(summary,
            List.of(ArtifactRef.ofBlob("shared.bin", null, blob)), List.of());
        try {
          return RaceChild.outcome(store.freeze(ROOT, ATTEMPT, submission));
        } catch (ArtifactConflictException e) {
          return RaceChild.outcome(e);
        }
      default:
        throw new IllegalArgumentException(mode);
    }
  }

  private List<String> runRace(Path base, String mode, ContentId blob) throws Exception {
    List<ChildJvm> children = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try (FileArtifactStore store = FileArtifactStore.open(base)) {
      for (int i = 0; i < CHILDREN; i++) {
        List<String> args = new ArrayList<>(List.of(base.toString(), mode,
            String.valueOf(THREADS + i)));
        if (blob != null) {
          args.add(blob.toString());
        }
        children.add(ChildJvm.start(List.of("-Xmx64m"), RaceChild.class,
            args.toArray(String[]::new)));
      }
      for (ChildJvm child : children) {
        assertThat(child.nextLine(DEADLINE)).isEqualTo("ready");
      }
      CountDownLatch go = new CountDownLatch(1);
      List<Future<String>> threads = new ArrayList<>();
      for (int i = 0; i < THREADS; i++) {
        int racer = i;
        threads.add(pool.submit(() -> {
          go.await();
          return race(store, mode, racer, blob);
        }));
      }
      for (ChildJvm child : children) {
        child.send("go");
      }
      go.countDown();
      List<String> outcomes = new ArrayList<>();
      for (Future<String> thread : threads) {
        outcomes.add(thread.get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
      }
      for (ChildJvm child : children) {
        outcomes.add(child.nextLine(DEADLINE));
        child.awaitSuccess(DEADLINE);
      }
      return outcomes;
    } finally {
      pool.shutdownNow();
      for (ChildJvm child : children) {
        child.close();
      }
    }
  }

  private static List<Path> files(Path directory) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      return files.toList();
    }
  }

  private ContentId sharedBlob(Path base) {
    try (FileArtifactStore store = FileArtifactStore.open(base)) {
      return store.blobs().put("shared".getBytes(StandardCharsets.UTF_8));
    }
  }

  @Test
  void racersFreezingTheSameContentAllGetTheOneSnapshot() throws Exception {
    Path base = dir.resolve("same");
    ContentId blob = sharedBlob(base);
    List<String> outcomes = runRace(base, "freeze-same", blob);

    try (FileArtifactStore store = FileArtifactStore.open(base)) {
      ArtifactSnapshot stored = store.getForAttempt(ROOT, ATTEMPT).orElseThrow();
      assertThat(outcomes).hasSize(THREADS + CHILDREN)
          .allMatch(o -> o.equals(RaceChild.outcome(stored)));
      Path file = store.snapshotPath(ROOT, stored.snapshotId());
      assertThat(files(file.getParent())).containsExactly(file);
      assertThat(files(store.directory().resolve("tmp"))).isEmpty();
    }
  }

  @Test
  void racersFreezingDifferentContentHaveExactlyOneWinner() throws Exception {
    Path base = dir.resolve("different");
    ContentId blob = sharedBlob(base);
    List<String> outcomes = runRace(base, "freeze-different", blob);

    try (FileArtifactStore store = FileArtifactStore.open(base)) {
      ArtifactSnapshot stored = store.getForAttempt(ROOT, ATTEMPT).orElseThrow();
      assertThat(outcomes).filteredOn(o -> o.startsWith("SNAPSHOT"))
          .containsExactly(RaceChild.outcome(stored));
      assertThat(outcomes).filteredOn(o -> o.startsWith("CONFLICT"))
          .hasSize(THREADS + CHILDREN - 1)
          .allMatch(o -> o.startsWith("CONFLICT " + stored.sha256() + " "))
          .doesNotHaveDuplicates();
      assertThat(stored.summary()).startsWith("racer ");
      Path file = store.snapshotPath(ROOT, stored.snapshotId());
      assertThat(files(file.getParent())).containsExactly(file);
      assertThat(files(store.directory().resolve("tmp"))).isEmpty();
    }
  }

  @Test
  void racersPuttingTheSameBytesEndWithOneReadOnlyFile() throws Exception {
    Path base = dir.resolve("put");
    List<String> outcomes = runRace(base, "put", null);

    try (FileArtifactStore store = FileArtifactStore.open(base)) {
      var expected = RaceChild.racedBytes();
      expected.transferTo(java.io.OutputStream.nullOutputStream());
      ContentId id = new ContentId(expected.sha256Hex());
      assertThat(outcomes).hasSize(THREADS + CHILDREN)
          .allMatch(o -> o.equals(RaceChild.outcome(id)));
      Path path = store.blobs().path(id);
      assertThat(files(path.getParent())).containsExactly(path);
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(path)))
          .isEqualTo("r--------");
      assertThat(files(store.directory().resolve("tmp"))).isEmpty();
      assertThat(store.blobs().verify().sound()).isTrue();
    }
  }

  @Test
  void manyThreadRoundsKeepOneWinnerEach() throws Exception {
    int rounds = 20 * Integer.getInteger("ledger.torture.scale", 1);
    Path base = dir.resolve("rounds");
    ContentId blob = sharedBlob(base);
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try (FileArtifactStore store = FileArtifactStore.open(base)) {
      for (int round = 0; round < rounds; round++) {
        String attempt = "attempt-" + round;
        CountDownLatch go = new CountDownLatch(1);
        List<Future<String>> results = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
          String summary = (i % 2 == 0) ? "even" : "odd " + i;
          results.add(pool.submit(() -> {
            go.await();
            try {
              return store.freeze(ROOT, attempt, AttemptSubmission.of(summary,
                  List.of(ArtifactRef.ofBlob("b", null, blob)), List.of())).sha256();
            } catch (ArtifactConflictException e) {
              return "conflict:" + e.existingSha256();
            }
          }));
        }
        go.countDown();
        List<String> seen = new ArrayList<>();
        for (Future<String> result : results) {
          seen.add(result.get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
        }
        String w = store.getForAttempt(ROOT, attempt).orElseThrow().sha256();
        assertThat(seen).as("round %d", round)
            .allMatch(s -> s.equals(w) || s.equals("conflict:" + w));
        assertThat(seen).as("round %d", round).contains(w);
      }
      assertThat(store.list(ROOT, SnapshotCursor.START, rounds + 1).snapshots()).hasSize(rounds);
      assertThat(files(store.directory().resolve("tmp"))).isEmpty();
    } finally {
      pool.shutdownNow();
    }
  }
}
