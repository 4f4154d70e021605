package dev.ledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

/**
 * What needs no store and no packaged jar: each command's help and the argument converters,
 * run in this JVM. The commands themselves are tested on the built jar by the *IT classes.
 */
class LedgerCommandTest {
  private record Run(int exit, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = LedgerCommand.run(args, new PrintWriter(out), new PrintWriter(err));
    return new Run(exit, out.toString(), err.toString());
  }

  @Test
  void everyCommandHasHelpOnStandardOutput() {
    for (List<String> command : List.of(List.of("ls"), List.of("show"), List.of("events"),
        List.of("verify"), List.of("repair"), List.of("export"), List.of("import"),
        List.of("gc"), List.of("orphans"), List.of("blobs"), List.of("blobs", "cat"),
        List.of("generate-completion"))) {
      String[] args = java.util.stream.Stream.concat(command.stream(), java.util.stream.Stream
          .of("--help")).toArray(String[]::new);
      Run help = run(args);
      assertThat(help.exit()).as(command.toString()).isZero();
      assertThat(help.out()).startsWith("Usage: ledger " + String.join(" ", command));
      assertThat(help.err()).isEmpty();
    }
  }

  @Test
  void usageErrorsAreOneLineAndExitTwo() {
    Run missing = run("show");
    assertThat(missing.exit()).isEqualTo(ExitCodes.USAGE);
    assertThat(missing.err().lines().toList()).singleElement().asString()
        .startsWith("ledger show: Missing required parameters: 'DIR', 'ROOT'");
    Run unknown = run("nonsense");
    assertThat(unknown.exit()).isEqualTo(ExitCodes.USAGE);
    assertThat(run("events", "d", "r", "--limit", "0").exit()).isEqualTo(ExitCodes.USAGE);
  }

  @Test
  void durationsTakeUnitsOrIso() {
    DurationConverter converter = new DurationConverter();
    assertThat(converter.convert("0")).isEqualTo(Duration.ZERO);
    assertThat(converter.convert("90s")).isEqualTo(Duration.ofSeconds(90));
    assertThat(converter.convert("15m")).isEqualTo(Duration.ofMinutes(15));
    assertThat(converter.convert("12h")).isEqualTo(Duration.ofHours(12));
    assertThat(converter.convert("7d")).isEqualTo(Duration.ofDays(7));
    assertThat(converter.convert("PT1H30M")).isEqualTo(Duration.ofMinutes(90));
    for (String bad : List.of("", "7", "-1s", "PT-1H", "1w", "soon")) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> converter.convert(bad))
          .as(bad).isInstanceOf(TypeConversionException.class);
    }
  }

  @Test
  void mergePatchFollowsRfc7386() throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper json = Json.MAPPER;
    // The examples of RFC 7386, appendix A, each as target, patch, result.
    String[][] cases = {
        {"{\"a\":\"b\"}", "{\"a\":\"c\"}", "{\"a\":\"c\"}"},
        {"{\"a\":\"b\"}", "{\"b\":\"c\"}", "{\"a\":\"b\",\"b\":\"c\"}"},
        {"{\"a\":\"b\"}", "{\"a\":null}", "{}"},
        {"{\"a\":\"b\",\"b\":\"c\"}", "{\"a\":null}", "{\"b\":\"c\"}"},
        {"{\"a\":[\"b\"]}", "{\"a\":\"c\"}", "{\"a\":\"c\"}"},
        {"{\"a\":\"c\"}", "{\"a\":[\"b\"]}", "{\"a\":[\"b\"]}"},
        {"{\"a\":{\"b\":\"c\"}}", "{\"a\":{\"b\":\"d\",\"c\":null}}", "{\"a\":{\"b\":\"d\"}}"},
        {"{\"a\":[{\"b\":\"c\"}]}", "{\"a\":[1]}", "{\"a\":[1]}"},
        {"[\"a\",\"b\"]", "[\"c\",\"d\"]", "[\"c\",\"d\"]"},
        {"{\"a\":\"b\"}", "[\"c\"]", "[\"c\"]"},
        {"{\"a\":\"foo\"}", "null", "null"},
        {"{\"a\":\"foo\"}", "\"bar\"", "\"bar\""},
        {"{\"e\":null}", "{\"a\":1}", "{\"e\":null,\"a\":1}"},
        {"[1,2]", "{\"a\":\"b\",\"c\":null}", "{\"a\":\"b\"}"},
        {"{}", "{\"a\":{\"bb\":{\"ccc\":null}}}", "{\"a\":{\"bb\":{}}}"}};
    for (String[] c : cases) {
      assertThat(ExportFold.mergePatch(json.readTree(c[0]), json.readTree(c[1])))
          .as(c[0] + " + " + c[1]).isEqualTo(json.readTree(c[2]));
    }
  }
}
