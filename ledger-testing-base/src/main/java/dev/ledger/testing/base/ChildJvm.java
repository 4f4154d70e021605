package dev.ledger.testing.base;

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
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A child JVM running a {@code main} class of the test class path, for tests that need
 * another process: one that is killed with SIGKILL mid-write, that holds a lock, or that
 * races this one. It runs this JVM's {@code java} with the test class path, and
 * {@code -Dledger.seed} set to this run's {@link TestSeed#rootSeed() root seed}.
 *
 * <p>The child's standard output is read line by line as it comes, so that a test waits for
 * a line (or any condition on the lines so far) with a deadline; its standard error is kept
 * (the first 64 KiB) for failure messages ({@link #describe()}); its standard input stays
 * open for {@link #send}, and its end tells the child that the parent is gone
 * ({@link #exitWhenParentGoes()}).
 *
 * <p><b>Every wait has a deadline</b>, and nothing here sleeps: a wait that runs out throws
 * an {@link AssertionError} that shows the child's state and output, after killing the child
 * where the child is what did not answer. {@link #close()} kills the child if it is still
 * running, so try-with-resources leaves no process behind.
 *
 * <p>The methods for the parent are thread-safe. The static methods
 * {@link #exitWhenParentGoes()} and {@link #awaitFromParent(String)} are for the child's
 * {@code main}.
 */
public final class ChildJvm implements AutoCloseable {
  /** How long {@link #kill()} and {@link #close()} wait for a killed child to be gone. */
  public static final Duration KILL_DEADLINE = Duration.ofSeconds(30);

  /** JVM options for a small, quickly starting child: children do I/O, not computation. */
  private static final List<String> DEFAULT_JVM_OPTIONS =
      List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m");

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
  private int consumed; // guarded by stdout: lines handed out by nextLine

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

  /**
   * Starts {@code main} with {@code args} in a new JVM with the default options (a small heap
   * and a fast-starting compiler).
   *
   * @param main a class of the test class path with a {@code public static void main}
   * @param args the arguments of {@code main}
   * @return the running child
   * @throws NullPointerException if an argument is null
   * @throws UncheckedIOException if the process cannot be started
   */
  public static ChildJvm start(Class<?> main, String... args) {
    return start(List.of(), main, args);
  }

  /**
   * Starts {@code main} with {@code args} in a new JVM, with {@code jvmOptions} after the
   * default ones (so {@code -Xmx64m} there overrides the default heap).
   *
   * @param jvmOptions options for the {@code java} command, such as {@code -Xmx64m}
   * @param main a class of the test class path with a {@code public static void main}
   * @param args the arguments of {@code main}
   * @return the running child
   * @throws NullPointerException if an argument is null
   * @throws UncheckedIOException if the process cannot be started
   */
  public static ChildJvm start(List<String> jvmOptions, Class<?> main, String... args) {
    Objects.requireNonNull(jvmOptions, "jvmOptions");
    Objects.requireNonNull(main, "main");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(DEFAULT_JVM_OPTIONS);
    command.addAll(jvmOptions);
    command.add("-D" + TestSeed.PROPERTY + "=" + TestSeed.rootSeed());
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

  /**
   * The child's process id.
   *
   * @return the pid
   */
  public long pid() {
    return process.pid();
  }

  /**
   * Whether the child is still running.
   *
   * @return true until it exits or is killed
   */
  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Sends one line to the child's standard input.
   *
   * @param line the line, without its line end
   * @throws UncheckedIOException if the child's input is closed (for example, it exited)
   */
  public void send(String line) {
    try {
      stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      stdin.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("writing to " + describe(), e);
    }
  }

  /**
   * Closes the child's standard input: the child reads its end, and a child that called
   * {@link #exitWhenParentGoes()} halts, as if this JVM had died.
   *
   * @throws UncheckedIOException if the pipe cannot be closed
   */
  public void closeInput() {
    try {
      stdin.close();
    } catch (IOException e) {
      throw new UncheckedIOException("closing the input of " + describe(), e);
    }
  }

  /**
   * The lines of standard output read so far.
   *
   * @return an immutable copy, in order
   */
  public List<String> lines() {
    synchronized (stdout) {
      return List.copyOf(stdout);
    }
  }

  /**
   * Waits until the lines read so far satisfy {@code condition}, or standard output ends, or
   * the deadline passes. The condition is evaluated under a lock; keep it short.
   *
   * @param condition a test on every line read so far, in order
   * @param timeout the deadline, from now
   * @return whether the condition holds
   * @throws InterruptedException if this thread is interrupted while waiting
   */
  public boolean awaitLines(Predicate<List<String>> condition, Duration timeout)
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

  /**
   * Waits for a line equal to {@code line}.
   *
   * @param line the line expected, without its line end
   * @param timeout the deadline, from now
   * @throws AssertionError with the child's output if no such line came in time
   * @throws InterruptedException if this thread is interrupted while waiting
   */
  public void awaitLine(String line, Duration timeout) throws InterruptedException {
    if (!awaitLines(lines -> lines.contains(line), timeout)) {
      throw new AssertionError("no line '" + line + "' within " + timeout + " from "
          + describe());
    }
  }

  /**
   * The next line of standard output not yet returned by this method, waiting for it: for a
   * conversation with the child, line by line.
   *
   * @param timeout the deadline, from now
   * @return the line
   * @throws AssertionError with the child's output if standard output ended or the deadline
   *     passed first
   * @throws InterruptedException if this thread is interrupted while waiting
   */
  public String nextLine(Duration timeout) throws InterruptedException {
    synchronized (stdout) {
      int index = consumed;
      if (!awaitLines(lines -> lines.size() > index, timeout)) {
        throw new AssertionError((stdoutClosed ? "output ended" : "no line within " + timeout)
            + " waiting for line " + (index + 1) + " from " + describe());
      }
      consumed++;
      return stdout.get(index);
    }
  }

  /**
   * Waits for the child to exit and for its output to be read.
   *
   * @param timeout the deadline, from now
   * @return the exit code
   * @throws AssertionError (after killing the child) if it did not exit in time
   * @throws InterruptedException if this thread is interrupted while waiting
   */
  public int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
      String state = describe();
      kill();
      throw new AssertionError("child did not exit within " + timeout + ": " + state);
    }
    joinReaders();
    return process.exitValue();
  }

  /**
   * Waits for the child to exit with code 0.
   *
   * @param timeout the deadline, from now
   * @throws AssertionError with the child's output if it exited with another code, or (after
   *     killing it) if it did not exit in time
   * @throws InterruptedException if this thread is interrupted while waiting
   */
  public void awaitSuccess(Duration timeout) throws InterruptedException {
    int code = awaitExit(timeout);
    if (code != 0) {
      throw new AssertionError("child exited with " + code + ": " + describe());
    }
  }

  /**
   * Kills the child with SIGKILL, waits (at most {@link #KILL_DEADLINE}) for it to be gone,
   * and for every line it wrote before dying to be read. Does nothing more to a child that
   * already exited.
   *
   * <p>The signal goes through the child's {@link ProcessHandle}, not
   * {@link Process#destroyForcibly()}: on Linux the latter also closes this side of the
   * child's output pipes, so the lines the child wrote just before it died and this JVM had
   * not read yet would be thrown away, and a test would take a step the child reported (a
   * delete, a commit acknowledged) for one it never announced.
   *
   * @throws AssertionError if the child outlives the deadline
   * @throws InterruptedException if this thread is interrupted while waiting
   */
  public void kill() throws InterruptedException {
    process.toHandle().destroyForcibly();
    if (!process.waitFor(KILL_DEADLINE.toNanos(), TimeUnit.NANOSECONDS)) {
      throw new AssertionError("child survived SIGKILL for " + KILL_DEADLINE + ": "
          + describe());
    }
    joinReaders();
  }

  private void joinReaders() throws InterruptedException {
    stdoutReader.join(KILL_DEADLINE.toMillis());
    stderrReader.join(KILL_DEADLINE.toMillis());
  }

  /**
   * The child's name, state and captured output, for failure messages.
   *
   * @return its main class and pid, whether it runs or its exit code, its last 20 lines of
   *     standard output and its standard error
   */
  public String describe() {
    String err;
    synchronized (stderr) {
      err = stderr.toString();
    }
    List<String> out = lines();
    List<String> tail = out.subList(Math.max(0, out.size() - 20), out.size());
    return name + (process.isAlive() ? " (running)" : " (exit " + process.exitValue() + ")")
        + "\n  last stdout lines: " + tail + "\n  stderr: " + err;
  }

  /**
   * Kills the child if it still runs (as {@link #kill()}), and closes its standard input.
   * If this thread is interrupted while waiting, the child has still been sent SIGKILL and
   * the interrupt is kept.
   *
   * @throws AssertionError if the child outlives SIGKILL for {@link #KILL_DEADLINE}
   */
  @Override
  public void close() {
    try {
      if (process.isAlive()) {
        kill();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      try {
        stdin.close();
      } catch (IOException e) {
        // The child is gone; its pipe may already be broken.
      }
    }
  }

  @Override
  public String toString() {
    return name;
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
   * For a child's {@code main}: halts this JVM (exit code 3) when its standard input ends,
   * that is when the parent closes it or dies, so that no child outlives a crashed or killed
   * test run. Call it once; it reads standard input on a daemon thread, so lines the parent
   * sends afterwards are only liveness signals.
   */
  public static void exitWhenParentGoes() {
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
   * For a child's {@code main}: blocks until the parent sends the line {@code expected} (a
   * start or release signal), skipping other lines; halts this JVM (exit code 3) if standard
   * input ends first, so a child never waits for a parent that is gone.
   *
   * @param expected the line to wait for
   * @throws IOException if standard input cannot be read
   */
  public static void awaitFromParent(String expected) throws IOException {
    String line;
    while ((line = FROM_PARENT.readLine()) != null) {
      if (line.equals(expected)) {
        return;
      }
    }
    Runtime.getRuntime().halt(3);
  }
}
