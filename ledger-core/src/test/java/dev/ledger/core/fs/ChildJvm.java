package dev.ledger.core.fs;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A child JVM running a test main class with this JVM's Java and test class path: its stdout
 * is collected line by line (so a test can wait for a line with a deadline), its stderr is
 * kept for failure messages, and its stdin stays open so that it can exit when this JVM
 * goes away ({@link #exitWhenParentGoes}).
 *
 * <p>Every wait takes a deadline; nothing here sleeps. Closing kills the child if it is still
 * running.
 */
final class ChildJvm implements AutoCloseable {
  /** In a child JVM: the lines its parent sends. */
  private static final BufferedReader FROM_PARENT =
      new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));

  private final String name;
  private final Process process;
  private final OutputStream stdin;
  private final List<String> stdout = new ArrayList<>(); // guarded by itself
  private final StringBuilder stderr = new StringBuilder(); // guarded by itself
  private final Thread stdoutReader;
  private final Thread stderrReader;
  private boolean stdoutClosed; // guarded by stdout

  private ChildJvm(String name, Process process) {
    this.name = name;
    this.process = process;
    this.stdin = process.getOutputStream();
    this.stdoutReader = new Thread(this::readStdout, name + "-stdout");
    this.stderrReader = new Thread(() -> drain(process.getErrorStream(), stderr),
        name + "-stderr");
    stdoutReader.setDaemon(true);
    stderrReader.setDaemon(true);
    stdoutReader.start();
    stderrReader.start();
  }

  /** Starts {@code main} with {@code args} in a new JVM. */
  static ChildJvm start(Class<?> main, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // A small, quickly starting JVM: the children do I/O, not computation.
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-XX:+UseSerialGC");
    command.add("-Xmx256m");
    command.add("-cp");
    command.add(classPath());
    command.add(main.getName());
    command.addAll(List.of(args));
    try {
      Process process = new ProcessBuilder(command).start();
      return new ChildJvm(main.getSimpleName() + "-" + process.pid(), process);
    } catch (IOException e) {
      throw new UncheckedIOException("starting " + command, e);
    }
  }

  /**
   * The test class path. Surefire may run tests from a manifest-only jar, whose
   * {@code Class-Path} a child JVM honours too; it also publishes the real path, preferred
   * when present.
   */
  private static String classPath() {
    String surefire = System.getProperty("surefire.test.class.path");
    return surefire != null && !surefire.isBlank() ? surefire
        : System.getProperty("java.class.path");
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Sends one line to the child's stdin. */
  void send(String line) {
    try {
      stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      stdin.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("writing to " + describe(), e);
    }
  }

  /** The stdout lines read so far. */
  List<String> lines() {
    synchronized (stdout) {
      return List.copyOf(stdout);
    }
  }

  /**
   * Waits until the lines read so far satisfy {@code condition}, or stdout ends, or the
   * deadline passes.
   *
   * @return whether the condition holds
   */
  boolean awaitLines(Predicate<List<String>> condition, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (stdout) {
      while (true) {
        if (condition.test(stdout)) {
          return true;
        }
        long left = deadline - System.nanoTime();
        if (stdoutClosed || left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(stdout, left);
      }
    }
  }

  /** Waits for a line equal to {@code line}; fails the test with the child's output if none. */
  void awaitLine(String line, Duration timeout) throws InterruptedException {
    if (!awaitLines(lines -> lines.contains(line), timeout)) {
      throw new AssertionError("no line '" + line + "' within " + timeout + " from "
          + describe());
    }
  }

  /**
   * Waits for the child to exit and for its output to be read.
   *
   * @return the exit code
   * @throws AssertionError (after killing it) if it did not exit in time
   */
  int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      kill();
      throw new AssertionError("child did not exit within " + timeout + ": " + describe());
    }
    joinReaders();
    return process.exitValue();
  }

  /**
   * Kills the child with SIGKILL ({@link Process#destroyForcibly()} on Unix), waits for it to
   * be gone and for every line it wrote before dying to be read.
   */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError("child survived SIGKILL for 30 s: " + describe());
    }
    joinReaders();
  }

  private void joinReaders() throws InterruptedException {
    stdoutReader.join(TimeUnit.SECONDS.toMillis(30));
    stderrReader.join(TimeUnit.SECONDS.toMillis(30));
  }

  /** The child's name, state and captured output, for failure messages. */
  String describe() {
    String err;
    synchronized (stderr) {
      err = stderr.toString();
    }
    List<String> out = lines();
    List<String> tail = out.subList(Math.max(0, out.size() - 20), out.size());
    return name + (process.isAlive() ? " (running)" : " (exit " + process.exitValue() + ")")
        + "\n  last stdout lines: " + tail + "\n  stderr: " + err;
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }

  private void readStdout() {
    try (BufferedReader reader = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        synchronized (stdout) {
          stdout.add(line);
          stdout.notifyAll();
        }
      }
    } catch (IOException e) {
      synchronized (stderr) {
        stderr.append("[reading stdout failed: ").append(e).append("]\n");
      }
    } finally {
      synchronized (stdout) {
        stdoutClosed = true;
        stdout.notifyAll();
      }
    }
  }

  private static void drain(InputStream in, StringBuilder into) {
    try (BufferedReader reader = new BufferedReader(
        new InputStreamReader(in, StandardCharsets.UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        synchronized (into) {
          if (into.length() < 64 * 1024) {
            into.append(line).append('\n');
          }
        }
      }
    } catch (IOException e) {
      synchronized (into) {
        into.append("[reading failed: ").append(e).append("]\n");
      }
    }
  }

  /**
   * For child mains: exits this JVM when its stdin ends, that is when the parent test JVM
   * closes it or dies, so that no child outlives a crashed or killed test run.
   */
  static void exitWhenParentGoes() {
    Thread watchdog = new Thread(() -> {
      try {
        while (FROM_PARENT.readLine() != null) {
          // Further input is only a liveness signal.
        }
      } catch (IOException e) {
        // Treated as the parent going away.
      }
      Runtime.getRuntime().halt(3);
    }, "parent-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
  }

  /**
   * For child mains: blocks until the parent sends {@code expected} on stdin (a start
   * signal), halting if stdin ends first.
   */
  static void awaitFromParent(String expected) throws IOException {
    String line;
    while ((line = FROM_PARENT.readLine()) != null) {
      if (line.equals(expected)) {
        return;
      }
    }
    Runtime.getRuntime().halt(3);
  }
}
