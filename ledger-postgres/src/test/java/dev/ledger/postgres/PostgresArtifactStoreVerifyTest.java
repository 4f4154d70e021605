package dev.ledger.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.artifacts.ArtifactConflictException;
import dev.ledger.artifacts.ArtifactOptions;
import dev.ledger.artifacts.ArtifactRef;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.ArtifactVerification;
import dev.ledger.artifacts.AttemptSubmission;
import dev.ledger.artifacts.BlobNotFoundException;
import dev.ledger.artifacts.CleanupMode;
import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.SnapshotDamage;
import dev.ledger.testing.base.MutableClock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PostgresArtifactStore#verify()} on real damage done behind the store's back (rows
 * updated in SQL, blob files deleted or overwritten on the shared directory), and the
 * Micrometer meters the store records under the file store's names.
 */
class PostgresArtifactStoreVerifyTest {
  @TempDir
  Path temp;

  private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));

  private static AttemptSubmission submission(String status, ContentId... blobs) {
    List<ArtifactRef> refs = new ArrayList<>();
    for (int i = 0; i < blobs.length; i++) {
      refs.add(ArtifactRef.ofBlob("out-" + i, "text/plain", blobs[i]));
    }
    return AttemptSubmission.of(status, refs, List.of());
  }

  @Test
  void aSoundStoreVerifiesCleanAcrossPages() throws Exception {
    try (PostgresArtifactStore store = PostgresArtifactStore.open(TestDatabase.dataSource(),
        TestDatabase.freshSchema(), temp, ArtifactOptions.defaults().withClock(clock))) {
      ContentId blob = store.blobs().put("shared".getBytes(StandardCharsets.UTF_8));
      for (int i = 0; i < 1203; i++) {
        store.freeze("root-" + (i % 3), "a" + i, submission("done " + i, blob));
      }
      ArtifactVerification verification = store.verify();
      assertThat(verification.damagedSnapshots()).isEmpty();
      assertThat(verification.sound()).isTrue();
      assertThat(verification.snapshots()).isEqualTo(1203);
      assertThat(verification.blobs().checked()).isEqualTo(1);
    }
  }

  @Test
  void damagedRowsAndMissingBlobsAreReportedByRowAndNothingChanges() throws Exception {
    String schema = TestDatabase.freshSchema();
    try (PostgresArtifactStore store = PostgresArtifactStore.open(TestDatabase.dataSource(),
        schema, temp, ArtifactOptions.defaults().withClock(clock))) {
      ContentId kept = store.blobs().put("kept".getBytes(StandardCharsets.UTF_8));
      ContentId lost = store.blobs().put("lost".getBytes(StandardCharsets.UTF_8));
      ContentId rotted = store.blobs().put("rotted".getBytes(StandardCharsets.UTF_8));
      ArtifactSnapshot sound = store.freeze("r", "sound", submission("ok", kept));
      ArtifactSnapshot edited = store.freeze("r", "edited", submission("ok", kept));
      ArtifactSnapshot notJson = store.freeze("r", "not-json", submission("ok"));
      ArtifactSnapshot unmarked = store.freeze("r", "unmarked", submission("ok", kept));
      ArtifactSnapshot orphaned = store.freeze("r", "orphaned", submission("ok", lost));
      store.freeze("s", "rotted", submission("ok", rotted));

      // The content changed under its digest; another row's content is not JSON; a third's
      // mark no longer lists its blob; a referenced blob is deleted; another's bytes rot.
      sql("UPDATE " + schema + ".artifact_snapshots SET content = convert_to(replace("
          + "convert_from(content, 'UTF8'), '\"ok\"', '\"forged\"'), 'UTF8')"
          + " WHERE attempt_id = 'edited'");
      sql("UPDATE " + schema + ".artifact_snapshots SET content = '\\x7b6e6f'::bytea"
          + " WHERE attempt_id = 'not-json'");
      sql("UPDATE " + schema + ".artifact_snapshots SET blobs = '{}' WHERE attempt_id ="
          + " 'unmarked'");
      Files.delete(store.blobs().path(lost));
      Path rottedFile = store.blobs().path(rotted);
      rottedFile.toFile().setWritable(true);
      Files.write(rottedFile, "rotten".getBytes(StandardCharsets.UTF_8));
      List<String> before = rows(schema);

      ArtifactVerification verification = store.verify();
      assertThat(verification.sound()).isFalse();
      assertThat(verification.snapshots()).isEqualTo(6);
      assertThat(verification.blobs().damaged()).hasSize(1);
      assertThat(verification.blobs().damaged().get(0).toString()).contains(rotted.hex());
      List<SnapshotDamage> damaged = verification.damagedSnapshots();
      assertThat(damaged).extracting(d -> d.path().getFileName().toString())
          .as("in root and snapshot id order").isSorted()
          .containsExactlyInAnyOrder(edited.snapshotId(), notJson.snapshotId(),
              orphaned.snapshotId(), unmarked.snapshotId());
      assertThat(damaged).allSatisfy(d -> {
        assertThat(d.rootId()).isEqualTo("r");
        assertThat(d.path().toString()).startsWith(schema + ".artifact_snapshots");
      });
      assertThat(of(damaged, edited).detail()).contains(edited.sha256()).contains("digest");
      assertThat(of(damaged, notJson).detail()).contains("not JSON");
      assertThat(of(damaged, orphaned).missingBlob()).isEqualTo(lost);
      assertThat(of(damaged, orphaned).detail()).contains(lost.hex());
      assertThat(of(damaged, unmarked).detail()).contains("blobs column").contains(kept.hex());
      assertThat(damaged).extracting(SnapshotDamage::path)
          .doesNotContain(Path.of(schema + ".artifact_snapshots", "r", sound.snapshotId()));

      assertThat(rows(schema)).as("verify changed nothing").isEqualTo(before);
      assertThat(Files.readString(rottedFile)).isEqualTo("rotten");
    }
  }

  @Test
  void aReadOnlyStoreVerifiesToo() throws Exception {
    String schema = TestDatabase.freshSchema();
    try (PostgresArtifactStore store = PostgresArtifactStore.open(TestDatabase.dataSource(),
        schema, temp, ArtifactOptions.defaults().withClock(clock))) {
      ContentId blob = store.blobs().put("x".getBytes(StandardCharsets.UTF_8));
      store.freeze("r", "a", submission("ok", blob));
      Files.delete(store.blobs().path(blob));
      try (PostgresArtifactStore reader = PostgresArtifactStore.openReadOnly(
          TestDatabase.dataSource(), schema, temp)) {
        ArtifactVerification verification = reader.verify();
        assertThat(verification.damagedSnapshots()).singleElement()
            .satisfies(d -> assertThat(d.missingBlob()).isEqualTo(blob));
      }
    }
  }

  @Test
  void recordsPutsFreezesAndCollectionsUnderTheFileStoresNames() throws Exception {
    MeterRegistry registry = new SimpleMeterRegistry();
    try (PostgresArtifactStore store = PostgresArtifactStore.open(TestDatabase.dataSource(),
        TestDatabase.freshSchema(), temp,
        ArtifactOptions.defaults().withClock(clock).withMeterRegistry(registry))) {
      ContentId kept = store.blobs().put("kept".getBytes(StandardCharsets.UTF_8));
      store.blobs().put(new byte[1000]);
      AttemptSubmission done = submission("done", kept);
      store.freeze("root", "a1", done);
      store.freeze("root", "a1", done);
      assertThatThrownBy(() -> store.freeze("root", "a1", submission("other")))
          .isInstanceOf(ArtifactConflictException.class);
      assertThatThrownBy(() -> store.freeze("root", "a2",
          submission("x", new ContentId("0".repeat(64)))))
          .isInstanceOf(BlobNotFoundException.class);
      clock.advance(Duration.ofHours(2));
      store.collectGarbage(Duration.ofHours(1), CleanupMode.DRY_RUN);
      store.collectGarbage(Duration.ofHours(1), CleanupMode.DELETE);

      assertThat(registry.get("artifacts.blob.put").tag("outcome", "success").timer().count())
          .isEqualTo(2);
      assertThat(registry.get("artifacts.blob.put.size").summary().totalAmount())
          .isEqualTo(4 + 1000);
      for (String outcome : List.of("frozen", "same", "conflict", "error")) {
        assertThat(registry.get("artifacts.freeze").tag("outcome", outcome).counter().count())
            .as(outcome).isEqualTo(1);
      }
      assertThat(registry.get("artifacts.gc").tag("mode", "dry_run").counter().count())
          .isEqualTo(1);
      assertThat(registry.get("artifacts.gc").tag("mode", "delete").counter().count())
          .isEqualTo(1);
      assertThat(registry.get("artifacts.gc.removed").counter().count()).isEqualTo(1);
      assertThat(registry.get("artifacts.gc.removed.size").counter().count()).isEqualTo(1000);
    }
  }

  private static SnapshotDamage of(List<SnapshotDamage> damaged, ArtifactSnapshot snapshot) {
    return damaged.stream()
        .filter(d -> d.path().getFileName().toString().equals(snapshot.snapshotId()))
        .findFirst().orElseThrow();
  }

  private static void sql(String statement) throws Exception {
    try (Connection c = TestDatabase.dataSource().getConnection();
        Statement s = c.createStatement()) {
      assertThat(s.executeUpdate(statement)).as(statement).isEqualTo(1);
    }
  }

  /** Every row of the snapshot table, as text, in key order. */
  private static List<String> rows(String schema) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = TestDatabase.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT root_id, attempt_id, snapshot_id,"
            + " sha256, frozen_at, encode(content, 'hex'), blobs::text FROM " + schema
            + ".artifact_snapshots ORDER BY root_id, attempt_id");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        StringBuilder row = new StringBuilder();
        for (int i = 1; i <= 7; i++) {
          row.append(rs.getString(i)).append('|');
        }
        out.add(row.toString());
      }
    }
    return out;
  }
}
