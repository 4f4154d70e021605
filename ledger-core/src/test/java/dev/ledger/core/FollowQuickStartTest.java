package dev.ledger.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Runs the README's follow snippet and checks what it prints. */
class FollowQuickStartTest {
  @Test
  void theSnippetPrintsEachEventThenTheResumePoint() throws Exception {
    PrintStream original = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      FollowQuickStart.main(new String[0]);
    } finally {
      System.setOut(original);
    }
    assertThat(out.toString(StandardCharsets.UTF_8).lines()).containsExactly(
        "1 counted {\"to\":1}",
        "2 counted {\"to\":2}",
        "3 counted {\"to\":3}",
        "resume after 0 more");
  }
}
