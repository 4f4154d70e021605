package dev.ledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the built jar ({@code target/ledger-cli.jar}, which the failsafe configuration names in
 * {@code ledger.cli.jar}) as a child process, as a user's shell would.
 */
final class Cli {
  private static final long TIMEOUT_SECONDS = 120;

  private Cli() {}

  /** What one run printed and returned. */
  record Result(int exit, String out, String err) {
    List<String> outLines() {
      return out.isEmpty() ? List.of() : List.of(out.split("\n"));
    }

    List<String> errLines() {
      return err.isEmpty() ? List.of() : List.of(err.split("\n"));
    }

    @Override
    public String toString() {
      return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  static Path jar() {
    String jar = System.getProperty("ledger.cli.jar");
    assertThat(jar).as("ledger.cli.jar (set by failsafe)").isNotNull();
    Path path = Path.of(jar);
    assertThat(path).as("the packaged jar").isRegularFile();
    return path;
  }

  static List<String> command(String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xshare:auto");
    command.add("-XX:TieredStopAtLevel=1"); // short runs on small stores: start fast
    command.add("-XX:+UseSerialGC");
    command.add("-jar");
    command.add(jar().toString());
    command.addAll(List.of(args));
    return command;
  }

  /** Runs {@code ledger args...} with empty standard input and waits for it. */
  static Result run(String... args) throws IOException, InterruptedException {
    return run(new ProcessBuilder(command(args)));
  }

  /** Runs a prepared process builder (its output is captured to files) and waits for it. */
  static Result run(ProcessBuilder builder) throws IOException, InterruptedException {
    Path out = Files.createTempFile("ledger-cli-out", ".txt");
    Path err = Files.createTempFile("ledger-cli-err", ".txt");
    try {
      builder.redirectOutput(out.toFile()).redirectError(err.toFile());
      Process process = builder.start();
      process.getOutputStream().close(); // empty standard input
      if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError("ledger " + builder.command() + " still ran after "
            + TIMEOUT_SECONDS + " s");
      }
      return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
