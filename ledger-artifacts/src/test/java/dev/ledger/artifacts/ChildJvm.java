package dev.ledger.artifacts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM running a main class of the test classpath, talking line by line over its
 * stdin and stdout; its stderr goes to a file shown when something fails.
 */
public final class ChildJvm implements AutoCloseable {
  private final Process process;
  private final BufferedReader out;
  private final Writer in;
  private final Path stderr;

  private ChildJvm(Process process, Path stderr) {
    this.process = process;
    this.stderr = stderr;
    this.out = new BufferedReader(new InputStreamReader(process.getInputStream(),
        StandardCharsets.UTF_8));
    this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
  }

  /** Starts {@code mainClass} with {@code jvmArgs} and then {@code args}. */
  public static ChildJvm start(Path workDir, List<String> jvmArgs, Class<?> mainClass,
      String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmArgs);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass.getName());
    command.addAll(List.of(args));
    Path stderr = Files.createTempFile(workDir, "child-", ".err");
    Process process = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
    return new ChildJvm(process, stderr);
  }

  /** The next line the child prints; fails the test if it ends first. */
  public String readLine() throws IOException {
    String line = out.readLine();
    if (line == null) {
      fail("child ended without output; stderr:\n" + stderr());
    }
    return line;
  }

  /** Sends a line to the child. */
  public void send(String line) throws IOException {
    in.write(line + "\n");
    in.flush();
  }

  /** Waits for the child to exit within {@code deadline} and checks that it exited with 0. */
  public void awaitSuccess(Duration deadline) throws IOException, InterruptedException {
    if (!process.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      fail("child did not exit within " + deadline + "; stderr:\n" + stderr());
    }
    assertThat(process.exitValue()).as("exit code; stderr:\n%s", stderr()).isZero();
  }

  /** Kills the child (SIGKILL on POSIX) and waits for it to be gone, within a deadline. */
  public void kill(Duration deadline) throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
      fail("child survived being killed for " + deadline);
    }
  }

  private String stderr() throws IOException {
    return Files.readString(stderr);
  }

  @Override
  public void close() throws IOException {
    if (process.isAlive()) {
      process.destroyForcibly();
    }
    out.close();
    in.close();
  }
}
