package dev.ledger.examples;

import java.io.PrintStream;

/**
 * Live progress: on a terminal one line rewritten in place with {@code \r}; otherwise plain
 * lines, at most one every half second and only when something changed, so a log file stays
 * short. Notes (one-off messages) always get their own line. Thread-safe.
 */
public final class Progress {
  private static final long PLAIN_INTERVAL_NANOS = 500_000_000L;
  private final PrintStream out;
  private final boolean terminal;
  private String last = "";
  private int width;
  private long lastPrinted;

  /** Progress on {@code out}; {@code terminal} chooses in-place updates. */
  public Progress(PrintStream out, boolean terminal) {
    this.out = out;
    this.terminal = terminal;
  }

  /** Progress on standard output, in place when the JVM has a console. */
  public static Progress onStdout() {
    return new Progress(System.out, System.console() != null);
  }

  /** Shows the current state of a plan. */
  public synchronized void show(String phase, PlanState s) {
    long done = s.countTasks(t -> t.status().terminal());
    int total = s.tasks().size();
    int filled = total == 0 ? 0 : (int) (20 * done / total);
    String line = String.format("%s [%s%s] %d/%d tasks  %d attempts  %d failed  %d conflicts"
            + "  ops: %d pending %d running %d stop_requested",
        phase, "#".repeat(filled), ".".repeat(20 - filled), done, total,
        s.countOperations(o -> o.status() == OperationStatus.SUCCEEDED
            || o.status() == OperationStatus.FAILED),
        s.countOperations(o -> o.status() == OperationStatus.FAILED), s.conflicts(),
        s.countOperations(o -> o.status() == OperationStatus.PENDING),
        s.countOperations(o -> o.status() == OperationStatus.RUNNING),
        s.countOperations(o -> o.status() == OperationStatus.STOP_REQUESTED));
    if (line.equals(last)) {
      return;
    }
    last = line;
    if (terminal) {
      out.print("\r" + line + " ".repeat(Math.max(0, width - line.length())));
      width = line.length();
      out.flush();
    } else if (System.nanoTime() - lastPrinted >= PLAIN_INTERVAL_NANOS || done == total) {
      out.println(line);
      lastPrinted = System.nanoTime();
    }
  }

  /** Prints a message on a line of its own (ending the in-place line first). */
  public synchronized void note(String message) {
    if (terminal && width > 0) {
      out.println();
      width = 0;
    }
    out.println(message);
    last = "";
  }

  /** Ends the in-place line, if any. */
  public synchronized void end() {
    if (terminal && width > 0) {
      out.println();
      width = 0;
    }
  }
}
