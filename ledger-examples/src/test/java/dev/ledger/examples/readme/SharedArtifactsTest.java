package dev.ledger.examples.readme;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's snippet of artifacts across hosts runs against a real server, twice (a second
 * host freezing the same content gets the same snapshot), and prints what the README says.
 */
class SharedArtifactsTest {
  @TempDir Path dir;

  @Test
  void theSnippetFreezesOnceAndASecondHostGetsTheSameSnapshot() throws Exception {
    Path report = Files.writeString(dir.resolve("report.txt"), "all 12 tests passed\n");
    try (EmbeddedPostgres server = EmbeddedPostgres.builder().start()) {
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl("jdbc:postgresql://localhost:" + server.getPort() + "/postgres");
      config.setUsername("postgres");
      try (HikariDataSource pool = new HikariDataSource(config)) {
        List<String> first = run(() -> SharedArtifacts.freezeOnce(pool, dir.resolve("mnt"),
            report));
        List<String> again = run(() -> SharedArtifacts.freezeOnce(pool, dir.resolve("mnt"),
            report));
        assertThat(first).containsExactlyElementsOf(ReadmeTest.output("postgres-artifacts-output"));
        assertThat(again).isEqualTo(first);
      }
    }
  }

  private static List<String> run(Runnable snippet) {
    PrintStream original = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (PrintStream capture = new PrintStream(out, true, StandardCharsets.UTF_8)) {
      System.setOut(capture);
      snippet.run();
    } finally {
      System.setOut(original);
    }
    return out.toString(StandardCharsets.UTF_8).lines().toList();
  }
}
