package dev.ledger.examples.readme;

import static org.assertj.core.api.Assertions.assertThat;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The README's PostgreSQL snippet runs against a real server and prints what it says. */
class ManyHostsTest {
  @Test
  void theSnippetCommitsOnceAndReplaysWhenRunAgain() throws Exception {
    try (EmbeddedPostgres server = EmbeddedPostgres.builder().start()) {
      String url = "jdbc:postgresql://localhost:" + server.getPort() + "/postgres";
      List<String> first = run(() -> ManyHosts.countOnce(url, "postgres", null));
      List<String> again = run(() -> ManyHosts.countOnce(url, "postgres", null));
      assertThat(first).containsExactly("revision 1");
      assertThat(again).containsExactly("revision 1 (replayed)");
    }
  }

  @Test
  void theCollectionsSnippetClaimsOnceAndReplaysTheClaimWhenRunAgain() throws Exception {
    try (EmbeddedPostgres server = EmbeddedPostgres.builder().start()) {
      String url = "jdbc:postgresql://localhost:" + server.getPort() + "/postgres";
      List<String> first = run(() -> ManyHosts.claimOnce(url, "postgres", null));
      List<String> again = run(() -> ManyHosts.claimOnce(url, "postgres", null));
      assertThat(first).containsExactly("claimed r-1 at revision 2");
      assertThat(again).containsExactly("claim replayed at revision 2");
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
