package dev.ledger.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Progress rewrites one line on a terminal and prints plain lines otherwise. */
class ProgressTest {
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
  private final PlanState plan = Plans.generate("p", 1, 40, 3);

  @Test
  void onATerminalTheLineIsRewrittenInPlaceAndFitsTheWidth() {
    Progress progress = new Progress(out, true);
    progress.show("session 1", plan);
    progress.show("session 1", plan.with(finished(plan.task("t01"))));
    progress.note("killed");

    String text = bytes.toString(StandardCharsets.UTF_8);
    assertThat(text).startsWith("\rsession 1 [..........] 0/40 done");
    assertThat(text).contains("\rsession 1 [..........] 1/40 done");
    assertThat(text).endsWith("\nkilled" + System.lineSeparator());
    for (String part : text.split("[\r\n]")) {
      assertThat(part.strip().length()).isLessThanOrEqualTo(79);
    }
  }

  @Test
  void withoutATerminalThereAreNoCarriageReturnsAndTheLastLineIsAlwaysPrinted() {
    Progress progress = new Progress(out, false);
    progress.show("session 1", plan);
    progress.show("session 1", plan.with(finished(plan.task("t01")))); // within 0.5 s
    PlanState done = plan;
    for (Task t : plan.tasks().values()) {
      done = done.with(finished(t));
    }
    progress.show("session 1", done);

    String text = bytes.toString(StandardCharsets.UTF_8);
    assertThat(text).doesNotContain("\r");
    assertThat(text.lines()).hasSize(2);
    assertThat(text.lines().toList().get(1)).contains("40/40 done");
  }

  /** The task moved through its lifecycle (dispatched, running) to succeeded. */
  private static Task finished(Task task) {
    return task.dispatched().withStatus(TaskStatus.RUNNING).succeeded("s");
  }
}
