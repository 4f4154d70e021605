package dev.ledger.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The example's command line: help on request, usage and status 2 for bad arguments. */
class DemoTest {
  private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
  private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();

  private int run(String... args) throws Exception {
    try (PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8)) {
      return Demo.run(args, out, err, false);
    }
  }

  private String out() {
    return outBytes.toString(StandardCharsets.UTF_8);
  }

  private String err() {
    return errBytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void helpPrintsTheUsageOnStandardOutputAndExitsZero() throws Exception {
    assertThat(run("--help")).isZero();

    assertThat(out()).isEqualTo(Demo.USAGE).startsWith("usage: ./run-example [--dir DIR]");
    assertThat(err()).isEmpty();
  }

  @Test
  void helpWorksAfterOtherArgumentsAndForReplay() throws Exception {
    assertThat(run("replay", "-h")).isZero();
    assertThat(run("--tasks", "12", "--help")).isZero();

    assertThat(out()).isEqualTo(Demo.USAGE + Demo.USAGE);
  }

  @Test
  void unknownArgumentsGiveTheUsageOnStandardErrorAndStatusTwo() throws Exception {
    assertThat(run("--task", "12")).isEqualTo(2);

    assertThat(out()).isEmpty();
    assertThat(err()).isEqualTo("unknown arguments [--task, 12]" + System.lineSeparator()
        + Demo.USAGE);
  }

  @Test
  void numbersOutsideTheirRangeOrNotNumbersAreRefusedWithStatusTwo() throws Exception {
    assertThat(run("--tasks", "4")).isEqualTo(2);
    assertThat(run("--threads", "0")).isEqualTo(2);
    assertThat(run("--seed", "seven")).isEqualTo(2);
    assertThat(run("--tasks")).isEqualTo(2);

    assertThat(out()).isEmpty();
    assertThat(err()).contains("--tasks must be 5 to 99: 4", "--threads must be 1 to 8: 0",
        "--seed needs a whole number: seven", "--tasks needs a value");
  }

  @Test
  void replayNeedsADirectory() throws Exception {
    assertThat(run("replay")).isEqualTo(2);
    assertThat(run("replay", "--out", "-")).isEqualTo(2);

    assertThat(err()).contains("replay needs a directory");
  }
}
