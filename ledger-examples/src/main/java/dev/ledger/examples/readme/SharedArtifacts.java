package dev.ledger.examples.readme;

import dev.ledger.artifacts.ArtifactOptions;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.ArtifactStore;
import dev.ledger.artifacts.AttemptSubmission;
import dev.ledger.artifacts.FileArtifact;
import dev.ledger.postgres.PostgresArtifactStore;
import java.nio.file.Path;
import java.util.List;
import javax.sql.DataSource;

/** The README's snippet of artifacts across hosts, compiled here and run by its test. */
public final class SharedArtifacts {
  private SharedArtifacts() {}

  /**
   * Freezes attempt {@code attempt-1} of root {@code run-1} with one produced file.
   *
   * @param dataSource the database every host uses
   * @param sharedMount a directory every host mounts
   * @param report the file the attempt produced
   */
  public static void freezeOnce(DataSource dataSource, Path sharedMount, Path report) {
    // README:begin postgres-artifacts
    // Snapshots in the database, blobs on the mount every host shares.
    try (ArtifactStore artifacts = PostgresArtifactStore.open(dataSource, "ledger",
        sharedMount, ArtifactOptions.defaults())) {
      ArtifactSnapshot snapshot = artifacts.freeze("run-1", "attempt-1",
          AttemptSubmission.of("tests green", List.of(), List.of())
              .withFile(new FileArtifact("report.txt", "text/plain", report)));
      System.out.println(snapshot.snapshotId().substring(0, 16) + " holds "
          + snapshot.artifactRefs().size() + " file, frozen once for every host");
    }
    // README:end
  }
}
