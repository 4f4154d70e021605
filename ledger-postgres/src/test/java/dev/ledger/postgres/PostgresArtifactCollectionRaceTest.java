package dev.ledger.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.artifacts.ArtifactOptions;
import dev.ledger.artifacts.ArtifactRef;
import dev.ledger.artifacts.AttemptSubmission;
import dev.ledger.artifacts.BlobCollection;
import dev.ledger.artifacts.BlobNotFoundException;
import dev.ledger.artifacts.CleanupMode;
import dev.ledger.artifacts.ContentId;
import dev.ledger.core.LockTimeoutException;
import dev.ledger.testing.base.MutableClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A garbage collection and a freeze from another store (another host, as far as the database
 * and the shared directory can tell) meet between the collection's mark and its sweep: the
 * freeze waits for the collection lock, then finds its blob swept and freezes nothing. No
 * snapshot ever references a blob that is gone.
 */
class PostgresArtifactCollectionRaceTest {
  private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

  @TempDir Path dir;

  @Test
  void freezeArrivingBetweenMarkAndSweepWaitsAndThenFindsItsBlobGone() throws Exception {
    MutableClock clock = new MutableClock(NOW);
    String schema = TestDatabase.freshSchema();
    ArtifactOptions options = ArtifactOptions.defaults().withClock(clock)
        .withLockTimeout(Duration.ofSeconds(60));
    try (PostgresArtifactStore collector = PostgresArtifactStore.open(TestDatabase.dataSource(),
            schema, dir, options);
        PostgresArtifactStore otherHost = PostgresArtifactStore.open(TestDatabase.dataSource(),
            schema, dir, options)) {
      ContentId old = collector.blobs().put("old and unreferenced".getBytes(
          StandardCharsets.UTF_8));
      clock.advance(Duration.ofHours(2));
      AttemptSubmission referencingOld = AttemptSubmission.of("late",
          List.of(ArtifactRef.ofBlob("old.txt", "text/plain", old)), List.of());

      CompletableFuture<Object> freeze = new CompletableFuture<>();
      BlobCollection collection = collector.collector(() -> {
        // The mark is done; the other host's freeze sees the blob and asks for the lock.
        assertThat(otherHost.blobs().exists(old)).isTrue();
        Thread racer = new Thread(() -> {
          try {
            freeze.complete(otherHost.freeze("root-1", "a-1", referencingOld));
          } catch (Throwable e) {
            freeze.completeExceptionally(e);
          }
        });
        racer.start();
        awaitAdvisoryLockWaiter();
        assertThat(freeze).as("the freeze waits for the collection").isNotDone();
      }).collect(Duration.ofHours(1), CleanupMode.DELETE);

      assertThat(collection.removed()).containsExactly(old);
      assertThatThrownBy(() -> freeze.get(60, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause().isInstanceOfSatisfying(BlobNotFoundException.class,
              e -> assertThat(e.id()).isEqualTo(old));
      assertThat(otherHost.getForAttempt("root-1", "a-1")).isEmpty();
      assertThat(otherHost.blobs().exists(old)).isFalse();
    }
  }

  @Test
  void freezeGivesUpOnTheCollectionLockAfterItsLockTimeout() throws Exception {
    MutableClock clock = new MutableClock(NOW);
    String schema = TestDatabase.freshSchema();
    try (PostgresArtifactStore collector = PostgresArtifactStore.open(TestDatabase.dataSource(),
            schema, dir, ArtifactOptions.defaults().withClock(clock));
        PostgresArtifactStore otherHost = PostgresArtifactStore.open(TestDatabase.dataSource(),
            schema, dir, ArtifactOptions.defaults().withClock(clock)
                .withLockTimeout(Duration.ofMillis(200)))) {
      collector.collector(() -> assertThatThrownBy(() -> otherHost.freeze("root-1", "a-1",
          AttemptSubmission.of("s", List.of(), List.of())))
          .isInstanceOf(LockTimeoutException.class)
          .hasMessageContaining("artifact collection lock")
          .hasMessageContaining(schema))
          .collect(Duration.ZERO, CleanupMode.DRY_RUN);
      assertThat(otherHost.getForAttempt("root-1", "a-1")).isEmpty();
      assertThat(otherHost.freeze("root-1", "a-1",
          AttemptSubmission.of("s", List.of(), List.of())).summary()).isEqualTo("s");
    }
  }

  /**
   * Waits until some session waits for an artifact collection lock (the advisory locks whose
   * high 32 bits are "artf"), with a deadline.
   */
  private static void awaitAdvisoryLockWaiter() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    try (Connection c = TestDatabase.dataSource().getConnection();
        Statement s = c.createStatement()) {
      while (System.nanoTime() < deadline) {
        try (ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_locks"
            + " WHERE locktype = 'advisory' AND NOT granted AND classid = x'61727466'::int")) {
          rs.next();
          if (rs.getInt(1) > 0) {
            return;
          }
        }
        java.util.concurrent.locks.LockSupport.parkNanos(1_000_000); // the server is polled
      }
    } catch (java.sql.SQLException e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("no session waited for the collection lock within 60 s");
  }
}
