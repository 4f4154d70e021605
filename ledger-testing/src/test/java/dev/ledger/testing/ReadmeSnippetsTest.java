package dev.ledger.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The snippets of README's "Testing your code with ledger" come from test classes of this
 * module, between {@code // README: NAME begin} and {@code // README: NAME end}, and those
 * tests run in the build. This test holds README to them: each region, less its common
 * indentation, must appear in README.md verbatim.
 */
class ReadmeSnippetsTest {
  private static final Pattern REGION = Pattern.compile(
      "^[ \\t]*// README: ([\\w-]+) begin\\n(.*?)^[ \\t]*// README: \\1 end$",
      Pattern.MULTILINE | Pattern.DOTALL);

  @Test
  void readmeShowsTheSnippetsAsTheTestsRunThem() throws IOException {
    String readme = Files.readString(Path.of("..", "README.md"));
    List<String> names = new ArrayList<>();
    try (Stream<Path> sources = Files.walk(Path.of("src", "test", "java"))) {
      for (Path source : sources.filter(p -> p.toString().endsWith(".java")).toList()) {
        Matcher region = REGION.matcher(Files.readString(source));
        while (region.find()) {
          String body = region.group(2);
          // Without its last line end, so that the end marker's line does not count as the
          // least indented one.
          String snippet = body.substring(0, body.length() - 1).stripIndent();
          names.add(region.group(1));
          assertThat(readme).as("README snippet '%s' from %s", region.group(1), source)
              .contains(snippet);
        }
      }
    }
    assertThat(names).contains("extension", "golden", "crash-my-code");
  }
}
