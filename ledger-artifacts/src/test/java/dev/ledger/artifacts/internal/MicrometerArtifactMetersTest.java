package dev.ledger.artifacts.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.artifacts.ArtifactConflictException;
import dev.ledger.artifacts.ArtifactOptions;
import dev.ledger.artifacts.ArtifactRef;
import dev.ledger.artifacts.ArtifactStore;
import dev.ledger.artifacts.AttemptSubmission;
import dev.ledger.artifacts.BlobNotFoundException;
import dev.ledger.artifacts.CleanupMode;
import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.fs.FileArtifactStore;
import dev.ledger.artifacts.memory.InMemoryArtifactStore;
import dev.ledger.testing.base.MutableClock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The artifact metrics a store records in a registry, after known operations. */
class MicrometerArtifactMetersTest {
  @TempDir
  Path dir;

  private final MeterRegistry registry = new SimpleMeterRegistry();
  private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));

  private ArtifactOptions options() {
    return ArtifactOptions.defaults().withClock(clock).withMeterRegistry(registry);
  }

  @Test
  void fileStoreRecordsPutsFreezesAndCollections() throws Exception {
    try (FileArtifactStore store = FileArtifactStore.open(dir, options())) {
      exercise(store);
    }
  }

  @Test
  void memoryStoreRecordsPutsFreezesAndCollections() throws Exception {
    try (InMemoryArtifactStore store = InMemoryArtifactStore.create(options())) {
      exercise(store);
    }
  }

  private void exercise(ArtifactStore store) throws Exception {
    ContentId kept = store.blobs().put("kept".getBytes(StandardCharsets.UTF_8));
    store.blobs().put(new ByteArrayInputStream(new byte[1000]));
    Path file = Files.write(dir.resolve("input"), new byte[24]);
    ContentId loose = store.blobs().put(file);

    AttemptSubmission submission = AttemptSubmission.of("done",
        List.of(ArtifactRef.ofBlob("out", "text/plain", kept)), List.of());
    store.freeze("root", "a1", submission);
    store.freeze("root", "a1", submission);
    assertThatThrownBy(() -> store.freeze("root", "a1", AttemptSubmission.of("other",
        List.of(), List.of()))).isInstanceOf(ArtifactConflictException.class);
    ContentId missing = new ContentId("0".repeat(64));
    assertThatThrownBy(() -> store.freeze("root", "a2", AttemptSubmission.of("x",
        List.of(ArtifactRef.ofBlob("out", "text/plain", missing)), List.of())))
        .isInstanceOf(BlobNotFoundException.class);

    clock.advance(Duration.ofHours(2));
    store.collectGarbage(Duration.ofHours(1), CleanupMode.DRY_RUN);
    store.collectGarbage(Duration.ofHours(1), CleanupMode.DELETE);
    assertThat(store.blobs().exists(loose)).isFalse();

    assertThat(registry.get("artifacts.blob.put").tag("outcome", "success").timer().count())
        .isEqualTo(3);
    assertThat(registry.get("artifacts.blob.put.size").summary().totalAmount())
        .isEqualTo(4 + 1000 + 24);
    assertThat(freezes("frozen")).isEqualTo(1);
    assertThat(freezes("same")).isEqualTo(1);
    assertThat(freezes("conflict")).isEqualTo(1);
    assertThat(freezes("error")).isEqualTo(1);
    assertThat(registry.get("artifacts.gc").tag("mode", "dry_run").counter().count())
        .isEqualTo(1);
    assertThat(registry.get("artifacts.gc").tag("mode", "delete").counter().count())
        .isEqualTo(1);
    // The 1000 zeros and the 24 zeros are unreferenced and old; only the delete counts them.
    assertThat(registry.get("artifacts.gc.removed").counter().count()).isEqualTo(2);
    assertThat(registry.get("artifacts.gc.removed.size").counter().count()).isEqualTo(1024);
  }

  private double freezes(String outcome) {
    return registry.get("artifacts.freeze").tag("outcome", outcome).counter().count();
  }

  @Test
  void withoutRegistryNothingIsRecorded() {
    try (InMemoryArtifactStore store = InMemoryArtifactStore.create()) {
      store.blobs().put(new byte[3]);
    }
    try (FileArtifactStore store = FileArtifactStore.open(dir)) {
      store.blobs().put(new byte[3]);
    }
    assertThat(Metrics.globalRegistry.getMeters()).isEmpty();
    assertThat(ArtifactOptions.defaults().meterRegistry()).isNull();
    assertThatThrownBy(() -> new ArtifactOptions(ArtifactOptions.defaults().durability(),
        Duration.ZERO, clock, "registry")).isInstanceOf(IllegalArgumentException.class);
  }
}
