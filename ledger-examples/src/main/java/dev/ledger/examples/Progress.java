package dev.ledger.examples;

import java.io.PrintStream;

/**
 * Live progress: on a terminal one line rewritten in place with {@code \r}; otherwise plain
 * lines, at most one every half second and only when something changed, so a log file stays
 * short. Notes (one-off messages) always get their own line. Thread-safe.
 */
public final class Progress {
  private static final long PLAIN_INTERVAL_NANOS = 500_000_000L;
  private static final int MAX_WIDTH = 79;
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
    int filled = total == 0 ? 0 : (int) (10 * done / total);
    long stopping = s.countOperations(o -> o.status() == OperationStatus.STOP_REQUESTED);
    // Attempts as the summary counts them: every operation dispatched, whatever its status.
    String line = String.format("%s [%s%s] %d/%d done  %s  %s  %d pending %d running%s",
        phase, "#".repeat(filled), ".".repeat(10 - filled), done, total,
        Plural.of(s.operations().size(), "attempt"), Plural.of(s.conflicts(), "conflict"),
        s.countOperations(o -> o.status() == OperationStatus.PENDING),
        s.countOperations(o -> o.status() == OperationStatus.RUNNING),
        stopping == 0 ? "" : " " + stopping + " stopping");
    if (terminal && line.length() > MAX_WIDTH) {
      line = line.substring(0, MAX_WIDTH); // a wrapped line could not be rewritten in place
    }
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
