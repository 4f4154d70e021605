package dev.ledger.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.ledger.artifacts.ArtifactConflictException;
import dev.ledger.artifacts.ArtifactOptions;
import dev.ledger.artifacts.ArtifactRef;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.AttemptSubmission;
import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.FileArtifact;
import dev.ledger.testing.base.ChildJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Child main for {@link PostgresArtifactRaceTest}: one "host" with its own pool and its own
 * {@link PostgresArtifactStore} on the shared database and blob directory. After the parent's
 * {@code GO} it freezes attempts {@code a-0 .. a-<count-1>} of root {@code race}, each with
 * content of its own: a file {@link #fileBytes} (stored as a blob by the freeze) and a
 * reference to a blob both children put ({@link #commonBytes}). For each attempt it prints
 * {@code WON <k> <sha256>} when the freeze returned its own content, or
 * {@code LOST <k> <winner sha256>} when it threw the conflict.
 *
 * <p>Arguments: JDBC URL, schema, shared base directory, child name, count.
 */
public final class RacingFreezer {
  private RacingFreezer() {}

  /** The bytes of the file child {@code child} submits for attempt {@code k}. */
  static byte[] fileBytes(String child, int k) {
    return ("attempt " + k + " as produced by " + child + "\n").repeat(50 + k)
        .getBytes(StandardCharsets.UTF_8);
  }

  /** The bytes both children put for attempt {@code k} and reference. */
  static byte[] commonBytes(int k) {
    return ("shared input of attempt " + k + "\n").repeat(200).getBytes(StandardCharsets.UTF_8);
  }

  public static void main(String[] args) throws IOException {
    String child = args[3];
    int count = Integer.parseInt(args[4]);
    Path scratch = Files.createTempDirectory("freezer-" + child);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args[0]);
    config.setUsername("postgres");
    config.setMaximumPoolSize(2);
    config.setPoolName("freezer " + child);
    try (HikariDataSource pool = new HikariDataSource(config);
        PostgresArtifactStore store = PostgresArtifactStore.open(pool, args[1], Path.of(args[2]),
            ArtifactOptions.defaults().withLockTimeout(Duration.ofSeconds(30)))) {
      System.out.println("READY");
      ChildJvm.awaitFromParent("GO");
      ChildJvm.exitWhenParentGoes();
      for (int k = 0; k < count; k++) {
        Path file = Files.write(scratch.resolve("out-" + k + ".txt"), fileBytes(child, k));
        ContentId common = store.blobs().put(commonBytes(k));
        AttemptSubmission submission = AttemptSubmission.of("by " + child,
            List.of(ArtifactRef.ofBlob("input.txt", "text/plain", common)), List.of())
            .withFile(new FileArtifact("out.txt", "text/plain", file));
        try {
          ArtifactSnapshot snapshot = store.freeze("race", "a-" + k, submission);
          System.out.println("WON " + k + " " + snapshot.sha256());
        } catch (ArtifactConflictException e) {
          System.out.println("LOST " + k + " " + e.existingSha256());
        }
      }
    } catch (RuntimeException | Error e) {
      e.printStackTrace();
      System.exit(1);
    }
    System.out.println("DONE " + child);
  }
}
