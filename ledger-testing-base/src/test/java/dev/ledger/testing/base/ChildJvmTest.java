package dev.ledger.testing.base;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The child-JVM helper: conversation, exit codes, and a deadline on every wait. */
class ChildJvmTest {
  private static final Duration DEADLINE = Duration.ofSeconds(60);

  @Test
  void conversationLineByLine() throws Exception {
    try (ChildJvm child = ChildJvm.start(EchoChild.class)) {
      assertThat(child.nextLine(DEADLINE)).isEqualTo("READY");
      assertThat(child.nextLine(DEADLINE)).isEqualTo("seed " + TestSeed.rootSeed());
      child.send("echo hello");
      assertThat(child.nextLine(DEADLINE)).isEqualTo("hello");
      child.send("echo again");
      child.awaitLine("again", DEADLINE);
      child.send("exit 0");
      child.awaitSuccess(DEADLINE);
      assertThat(child.isAlive()).isFalse();
      assertThat(child.lines()).containsExactly("READY", "seed " + TestSeed.rootSeed(), "hello",
          "again");
    }
  }

  @Test
  void nonZeroExitFailsAwaitSuccessWithTheCode() throws Exception {
    try (ChildJvm child = ChildJvm.start(List.of("-Xmx32m"), EchoChild.class)) {
      child.awaitLine("READY", DEADLINE);
      child.send("echo last words");
      child.send("exit 7");
      assertThatThrownBy(() -> child.awaitSuccess(DEADLINE))
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("exited with 7")
          .hasMessageContaining("last words");
    }
  }

  @Test
  void lineThatNeverComesFailsAtTheDeadlineWithTheOutputSoFar() throws Exception {
    try (ChildJvm child = ChildJvm.start(EchoChild.class)) {
      child.awaitLine("READY", DEADLINE);
      long started = System.nanoTime();
      assertThatThrownBy(() -> child.awaitLine("never", Duration.ofMillis(300)))
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("no line 'never' within PT0.3S")
          .hasMessageContaining("READY")
          .hasMessageContaining("(running)");
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .isGreaterThanOrEqualTo(Duration.ofMillis(300))
          .isLessThan(DEADLINE);
      assertThat(child.awaitLines(lines -> lines.contains("never"), Duration.ofMillis(10)))
          .isFalse();
    }
  }

  @Test
  void nextLineFailsWhenOutputEnds() throws Exception {
    try (ChildJvm child = ChildJvm.start(EchoChild.class)) {
      child.nextLine(DEADLINE);
      child.nextLine(DEADLINE);
      child.send("exit 0");
      assertThatThrownBy(() -> child.nextLine(DEADLINE))
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("output ended waiting for line 3");
    }
  }

  @Test
  void childThatDoesNotExitIsKilledAtTheDeadline() throws Exception {
    ChildJvm child = ChildJvm.start(EchoChild.class);
    try (child) {
      child.awaitLine("READY", DEADLINE);
      child.send("hang");
      assertThatThrownBy(() -> child.awaitExit(Duration.ofMillis(200)))
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("did not exit within PT0.2S");
      assertThat(child.isAlive()).isFalse();
    }
  }

  @Test
  void killEndsTheChildAndKeepsWhatItPrinted() throws Exception {
    try (ChildJvm child = ChildJvm.start(EchoChild.class)) {
      child.send("echo before");
      child.awaitLine("before", DEADLINE);
      child.send("hang");
      child.kill();
      assertThat(child.isAlive()).isFalse();
      assertThat(child.lines()).contains("READY", "before");
      assertThat(child.describe()).contains("(exit ");
    }
  }

  /**
   * The lines a child wrote just before it was killed and this JVM had not read yet must be
   * read after the kill (on Linux, {@code Process.destroyForcibly()} closes the pipe and drops
   * them). To have lines still unread at the kill, another thread holds the lock the reader
   * takes for every line (an {@code awaitLines} condition runs under it) from before the
   * child writes until a while after the child is dead.
   */
  @Test
  void killKeepsTheLinesStillInThePipe(@TempDir Path dir) throws Exception {
    int lines = 4_000; // about 36 KiB: one write, well within a pipe's 64 KiB
    Path written = dir.resolve("written");
    try (ChildJvm child = ChildJvm.start(EchoChild.class)) {
      child.awaitLine("READY", DEADLINE);
      CountDownLatch holding = new CountDownLatch(1);
      Thread holder = new Thread(() -> {
        try {
          child.awaitLines(l -> {
            holding.countDown();
            while (child.isAlive()) {
              Thread.onSpinWait();
            }
            // A while for the kill to do what it does after the signal, before reading on.
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
            return true;
          }, DEADLINE);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "holder");
      holder.start();
      assertThat(holding.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
      child.send("burst " + lines + " " + written);
      long deadline = System.nanoTime() + DEADLINE.toNanos();
      while (!Files.exists(written)) {
        assertThat(System.nanoTime() - deadline).as("the burst within %s", DEADLINE)
            .isNegative();
        Thread.onSpinWait();
      }
      child.kill();
      holder.join();
      List<String> out = child.lines();
      assertThat(child.describe()).doesNotContain("reading stdout failed");
      assertThat(out).hasSize(2 + lines);
      assertThat(out.get(out.size() - 1)).isEqualTo("line " + (lines - 1));
    }
  }

  @Test
  void childThatWatchesItsParentHaltsWhenItsInputEnds() throws Exception {
    try (ChildJvm child = ChildJvm.start(EchoChild.class)) {
      child.send("watch");
      child.awaitLine("WATCHING", DEADLINE);
      child.closeInput();
      assertThat(child.awaitExit(DEADLINE)).isEqualTo(3);
    }
  }

  @Test
  void closeKillsARunningChild() throws Exception {
    ChildJvm child = ChildJvm.start(EchoChild.class);
    child.awaitLine("READY", DEADLINE);
    child.close();
    assertThat(child.isAlive()).isFalse();
  }
}
