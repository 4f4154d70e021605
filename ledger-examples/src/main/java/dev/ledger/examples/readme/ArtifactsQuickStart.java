package dev.ledger.examples.readme;

// README:begin artifacts
import dev.ledger.artifacts.ArtifactConflictException;
import dev.ledger.artifacts.ArtifactRef;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.ArtifactStore;
import dev.ledger.artifacts.AttemptSubmission;
import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.EvidenceRef;
import dev.ledger.artifacts.fs.FileArtifactStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Artifacts: store a file as a blob, freeze an attempt's snapshot, read it back. */
public class ArtifactsQuickStart {
  /** Takes a store directory, or makes a new temporary one. */
  public static void main(String[] args) throws IOException {
    Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("artifacts");
    Path report = Files.writeString(dir.resolve("report.html"), "<p>all tests green</p>\n");
    try (ArtifactStore store = FileArtifactStore.open(dir)) { // or InMemoryArtifactStore.create()
      ContentId blob = store.blobs().put(report); // streamed and hashed
      System.out.println("stored report.html as " + blob);

      AttemptSubmission submission = AttemptSubmission.of("all tests green",
          List.of(ArtifactRef.ofBlob("report.html", "text/html", blob)),
          List.of(EvidenceRef.ofUri("ci-log", "CI run", "https://ci.example/run/7")));
      ArtifactSnapshot frozen = store.freeze("run-1", "attempt-7", submission);
      System.out.println("froze " + frozen.snapshotId());

      // First write wins: the same content gives the same snapshot, other content is refused.
      System.out.println("frozen again, same snapshot: "
          + store.freeze("run-1", "attempt-7", submission).equals(frozen));
      try {
        store.freeze("run-1", "attempt-7", AttemptSubmission.of("changed", List.of(), List.of()));
      } catch (ArtifactConflictException e) {
        System.out.println("refused: attempt-7 is frozen with other content");
      }

      ArtifactSnapshot found = store.getForAttempt("run-1", "attempt-7").orElseThrow();
      ContentId first = found.artifactRefs().get(0).blob();
      try (InputStream in = store.blobs().open(first)) { // verified against its id as it is read
        String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        System.out.println(found.summary() + ": " + text.strip());
      }
    }
  }
}
// README:end
