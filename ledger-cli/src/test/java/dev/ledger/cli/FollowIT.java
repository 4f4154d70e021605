package dev.ledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.fs.FileLedgerStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ledger events --follow} as a child process, fed by commits of this JVM (another
 * process, with its own store on the directory), then stopped with SIGTERM.
 */
class FollowIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration DEADLINE = Duration.ofSeconds(60);

  @TempDir
  Path base;

  @Test
  void followPrintsCommitsOfAnotherProcessAndEndsCleanlyOnSigterm() throws Exception {
    Path store = base.resolve("store");
    Path out = base.resolve("out.jsonl");
    Path err = base.resolve("err.txt");
    try (FileLedgerStore ledgers = FileLedgerStore.open(store)) {
      Ledger<JsonNode> ledger = ledgers.ledger("run-1", JsonNode.class);
      ledger.commit(Ledger.NO_REVISION, JSON.createObjectNode().put("count", 1),
          EventDraft.of("counted", Map.of("to", 1)));

      Process follow = new ProcessBuilder(Cli.command("events", store.toString(), "run-1",
          "--follow", "--type", "counted"))
          .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
      try {
        awaitLines(out, 1, follow);
        for (int i = 2; i <= 4; i++) {
          ledger.commit(i - 1, JSON.createObjectNode().put("count", i),
              EventDraft.of("counted", Map.of("to", i)), EventDraft.of("ignored", Map.of()));
          awaitLines(out, i, follow); // each commit reaches the follower while it waits
        }
        follow.destroy(); // SIGTERM
        assertThat(follow.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        String errText = Files.readString(err, StandardCharsets.UTF_8);
        assertThat(follow.exitValue()).as(errText).isZero();

        List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
        assertThat(lines).hasSize(4);
        for (int i = 0; i < 4; i++) {
          JsonNode event = JSON.readTree(lines.get(i));
          assertThat(event.get("type").asText()).isEqualTo("counted");
          assertThat(event.at("/payload/to").asInt()).isEqualTo(i + 1);
        }
        assertThat(errText.lines().toList()).singleElement().asString().startsWith("cursor: ");
        String cursor = errText.strip().substring("cursor: ".length());

        // The printed cursor resumes after the last event seen: nothing, then only what came.
        Cli.Result none = Cli.run("events", store.toString(), "run-1", "--after", cursor);
        assertThat(none.exit()).as(none.toString()).isZero();
        assertThat(none.out()).isEmpty();
        ledger.commit(4, JSON.createObjectNode().put("count", 5),
            EventDraft.of("counted", Map.of("to", 5)));
        Cli.Result next = Cli.run("events", store.toString(), "run-1", "--after", cursor);
        assertThat(next.outLines()).singleElement().asString().contains("\"to\":5");
      } finally {
        follow.destroyForcibly();
      }
    }
  }

  @Test
  void followWithALimitEndsByItself() throws Exception {
    Path store = base.resolve("store");
    try (FileLedgerStore ledgers = FileLedgerStore.open(store)) {
      Ledger<JsonNode> ledger = ledgers.ledger("run-1", JsonNode.class);
      ledger.commit(Ledger.NO_REVISION, JSON.createObjectNode(),
          EventDraft.of("a", Map.of()), EventDraft.of("b", Map.of()));
    }
    Cli.Result result = Cli.run("events", store.toString(), "run-1", "--follow", "--limit", "2");
    assertThat(result.exit()).as(result.toString()).isZero();
    assertThat(result.outLines()).hasSize(2);
    assertThat(result.errLines()).singleElement().asString().startsWith("cursor: ");
  }

  private static void awaitLines(Path file, int count, Process process) throws Exception {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (System.nanoTime() < deadline) {
      if (Files.exists(file) && Files.readAllLines(file, StandardCharsets.UTF_8).size() >= count) {
        return;
      }
      if (!process.isAlive()) {
        throw new AssertionError("the follower exited with " + process.exitValue());
      }
      Thread.sleep(20); // polls a condition with a deadline; the follower writes a file
    }
    throw new AssertionError("the follower did not print " + count + " lines in " + DEADLINE);
  }
}
