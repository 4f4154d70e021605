package dev.ledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.artifacts.ArtifactStore;
import dev.ledger.artifacts.fs.FileArtifactStore;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.fs.FileLedgerStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Runs the built jar ({@code target/ledger-cli.jar}, which the failsafe configuration names in
 * {@code ledger.cli.jar}) as a child process, as a user's shell would. Every CLI test goes
 * through here, so that each child JVM starts the same cheap way.
 *
 * <p>Starting the JVM is most of what a command costs on a small store. Besides flags that
 * suit short runs, the first use makes an application class-data-sharing archive of the
 * jar (one training run, {@code -XX:ArchiveClassesAtExit}); every later child maps it
 * ({@code -XX:SharedArchiveFile}) instead of loading and verifying those classes again. The
 * archive only speeds the start: a JVM that cannot use it (another JDK, a changed jar) loads
 * the classes as usual, with the warning silenced, so the output the tests check is the same.
 */
final class Cli {
  private static final long TIMEOUT_SECONDS = 120;
  private static final List<String> FAST_START = List.of(
      "-Xshare:auto",
      "-XX:TieredStopAtLevel=1", // short runs on small stores: the C1 compiler is enough
      "-XX:+UseSerialGC");
  /** The archive of this test JVM's children; null until made, empty if it could not be. */
  private static Optional<Path> archive;

  private Cli() {}

  /** The state of the ledger the training run reads. */
  record Training(String value) {}

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
    command.add(java());
    command.addAll(FAST_START);
    archive().ifPresent(file -> {
      command.add("-XX:SharedArchiveFile=" + file);
      command.add("-Xlog:cds=off,cds+dynamic=off");
    });
    command.add("-jar");
    command.add(jar().toString());
    command.addAll(List.of(args));
    return command;
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /**
   * Makes the class-data archive once per test JVM: one run of {@code verify --artifacts} on
   * a small store, which loads the classes of the store, the artifacts and the JSON code that
   * most commands use. Its output is not checked; what it cost is printed.
   */
  private static synchronized Optional<Path> archive() {
    if (archive == null) {
      archive = Optional.empty();
      try {
        Path dir = Files.createTempDirectory("ledger-cli-cds");
        Path file = dir.resolve("ledger-cli.jsa");
        Path store = dir.resolve("store");
        try (LedgerStore ledgers = FileLedgerStore.open(store)) {
          ledgers.ledger("training", Training.class).commit(Ledger.NO_REVISION, new Training("v"),
              EventDraft.of("trained", Map.of()));
        }
        try (ArtifactStore artifacts = FileArtifactStore.open(store)) {
          artifacts.blobs().put(new byte[] {1});
        }
        List<String> training = new ArrayList<>();
        training.add(java());
        training.addAll(FAST_START);
        training.add("-XX:ArchiveClassesAtExit=" + file);
        training.addAll(List.of("-jar", jar().toString(), "verify", store.toString(),
            "--artifacts"));
        long start = System.nanoTime();
        Process process = new ProcessBuilder(training).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        process.getOutputStream().close();
        boolean done = process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (!done) {
          process.destroyForcibly();
        }
        if (done && Files.isRegularFile(file)) {
          archive = Optional.of(file);
        }
        System.out.printf("ledger-cli class-data archive: %s after %d ms%n",
            archive.isPresent() ? "made" : "not made (children load classes as usual)",
            (System.nanoTime() - start) / 1_000_000);
        file.toFile().deleteOnExit();
        dir.toFile().deleteOnExit();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return archive;
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
