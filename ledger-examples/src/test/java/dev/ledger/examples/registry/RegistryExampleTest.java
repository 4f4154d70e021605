package dev.ledger.examples.registry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.registry.RunEvent;
import dev.ledger.registry.RunRecord;
import dev.ledger.registry.RunRegistry;
import dev.ledger.registry.RunStatus;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The run registry example as {@code ./run-example registry} runs it, once for the class, in
 * this JVM with its real child processes: it succeeds, prints the story and the lineages the
 * README shows, and the store it leaves says the same when read back.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class RegistryExampleTest {
  @TempDir static Path dir;
  private static int status;
  private static String out;
  private static String err;

  @BeforeAll
  static void runTheExample() throws Exception {
    ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    try (PrintStream o = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(errBytes, true, StandardCharsets.UTF_8)) {
      status = RegistryExample.run(List.of("--dir", dir.resolve("example").toString()), o, e);
    }
    out = outBytes.toString(StandardCharsets.UTF_8);
    err = errBytes.toString(StandardCharsets.UTF_8);
  }

  private static List<String> lines() {
    return out.lines().toList();
  }

  @Test
  void itSucceedsAndPrintsTheLineagesWithTheirAttemptsInOrder() {
    assertThat(status).as("exit status; stdout:%n%s%nstderr:%n%s", out, err).isZero();
    List<String> lines = lines();
    int at = lines.indexOf("lineages, newest first (listRecentLineages), attempts in order:");
    assertThat(at).as(out).isNotNegative();
    List<String> lineages = lines.subList(at + 1, at + 8);
    assertThat(lineages).as(out).containsOnlyOnce("  call-1: 2 attempts",
        "  report-1: 1 attempt", "  align-1: 1 attempt");
    int call = lineages.indexOf("  call-1: 2 attempts");
    assertThat(lineages.get(call + 1)).as(out).startsWith(
        "    attempt 1  call-1    failed     exit 3    revision 3  \"error: input ")
        .endsWith("samples.csv does not exist\"");
    assertThat(lineages.get(call + 2)).as(out)
        .isEqualTo("    attempt 2  call-2    completed  exit 0    revision 3");
    int report = lineages.indexOf("  report-1: 1 attempt");
    assertThat(lineages.get(report + 1)).as(out)
        .isEqualTo("    attempt 1  report-1  canceled   exit 143  revision 5");
    int align = lineages.indexOf("  align-1: 1 attempt");
    assertThat(lineages.get(align + 1)).as(out)
        .isEqualTo("    attempt 1  align-1   completed  exit 0    revision 3");
  }

  @Test
  void itTellsTheStoryStepByStep() {
    assertThat(lines()).as(out).contains(
        "allocated  align-1   attempt 1 of align-1   starting         revision 1",
        "allocated  call-2    attempt 2 of call-1    starting         revision 1",
        "started    report-1  pid recorded (no event, revision 1)",
        "running    call-1    starting -> running, revision 2 (job says ready)",
        "failed     call-1    running -> failed, revision 3 (exit 3)",
        "re-attempt call-2    in the lineage of call-1",
        "refused    report-1  a transition that names revision 1: the run is at 2",
        "cancel     report-1  running -> cancel_requested, revision 3 (cancel asked)",
        "cancel     report-1  cancel_requested -> canceling, revision 4 (SIGTERM sent)",
        "cancel     report-1  canceling -> canceled, revision 5 (stopped, exit 143)",
        "completed  call-2    running -> completed, revision 3 (exit 0)",
        "  report-1  1 starting, 2 starting->running, 3 running->cancel_requested,"
            + " 4 cancel_requested->canceling, 5 canceling->canceled",
        "  call-1    1 starting, 2 starting->running, 3 running->failed",
        "reopened   4 runs, active runs of registry-example: none");
  }

  @Test
  void theStoreItLeavesHoldsTheRunsTheirPidsAndOneEventPerRevision() throws Exception {
    Path example = dir.resolve("example");
    try (FileLedgerStore store = FileLedgerStore.open(example.resolve("store"))) {
      RunRegistry registry = RegistryExample.registry(store);
      for (String name : List.of("align-1", "call-1", "call-2", "report-1")) {
        RunRecord run = registry.runByExternalId(name).orElseThrow();
        assertThat(run.status().isTerminal()).as("%s", run).isTrue();
        assertThat(run.pid()).as("%s", run).isNotNull().isPositive();
        assertThat(run.completedAt()).as("%s", run).isNotNull();
        List<RunEvent> events = registry.runEvents(run.id());
        assertThat(events).as("%s", run).hasSize((int) run.revision());
        assertThat(events.get(events.size() - 1).to()).isEqualTo(run.status());
        Path log = run.launchLogPath();
        assertThat(Files.readAllLines(log)).as("%s", log).startsWith("ready");
      }
      RunRecord failed = registry.runByExternalId("call-1").orElseThrow();
      List<String> log = Files.readAllLines(failed.launchLogPath());
      assertThat(failed.failureSummary()).isEqualTo(log.get(log.size() - 1));
      assertThat(registry.latestAttempt("call-1").orElseThrow().externalRunId())
          .isEqualTo("call-2");
      RunRecord cancelled = registry.runByExternalId("report-1").orElseThrow();
      assertThat(cancelled.status()).isEqualTo(RunStatus.CANCELED);
      assertThat(cancelled.cancelRequestedAt()).isNotNull();
      for (String done : List.of("align-1", "call-2")) {
        RunRecord run = registry.runByExternalId(done).orElseThrow();
        assertThat(run.runDirectory().resolve("result.txt")).as("%s", run).exists();
      }
    }
  }
}
