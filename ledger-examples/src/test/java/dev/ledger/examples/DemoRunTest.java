package dev.ledger.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.fs.FileLedgerStore;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example as a user runs it ({@code ./run-example}), in this JVM with its real worker
 * processes, once for the whole class: it succeeds, the summary it prints is exactly the one
 * recomputed from the files it wrote, and the files tell the story the README tells, whatever
 * the timing.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class DemoRunTest {
  private static final String PLAN = "example-plan";

  @TempDir static Path dir;
  private static Path store;
  private static int status;
  private static String out;
  private static String err;

  @BeforeAll
  static void runTheExample() throws Exception {
    store = dir.resolve("store");
    ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    try (PrintStream o = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(errBytes, true, StandardCharsets.UTF_8)) {
      status = Demo.run(new String[] {"--dir", store.toString(), "--tasks", "16", "--seed", "11"},
          o, e, false);
    }
    out = outBytes.toString(StandardCharsets.UTF_8);
    err = errBytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void itSucceedsAndSaysItCheckedItsSummaryAgainstTheFiles() {
    assertThat(status).as("exit status; stdout:%n%s%nstderr:%n%s", out, err).isZero();
    assertThat(out).contains("  checked    recomputed from the files alone");
    // "1 attempts", but not "21 attempts": a count of exactly one in the plural.
    for (String plural : List.of("recoverable operations", "attempts", "conflicts")) {
      assertThat(out).doesNotContainPattern("(?<![0-9])1 " + plural);
    }
  }

  @Test
  void theSummaryPrintedIsExactlyTheOneTheFilesGive() {
    List<String> expected = RunSummary.read(store, PLAN).lines();

    List<String> lines = out.lines().toList();
    int at = lines.indexOf("summary");
    assertThat(at).as("a summary in%n%s", out).isNotNegative();
    assertThat(lines.subList(at + 1, at + 1 + expected.size()))
        .containsExactlyElementsOf(expected);
  }

  @Test
  void theDemosCheckAcceptsTheTrueSummaryAndNamesWhatIsWrongInAnother() throws Exception {
    RunSummary truth = RunSummary.read(store, PLAN);
    JournalReplay.Result replay = JournalReplay.replay(store, OutputStream.nullOutputStream());
    Path jsonl = dir.resolve("store-journal.jsonl");
    RunSummary wrong = new RunSummary(PLAN, truth.tasks(), truth.maxAttempts(),
        truth.succeeded(), truth.failed(), truth.skipped(), truth.attempts(),
        truth.succeededAttempts(), truth.failedAttempts(), truth.cancelledAttempts(),
        truth.retries(), truth.conflicts() + 1, truth.snapshots(), truth.cancelledWithSnapshot(),
        truth.blobs(), truth.kills(), truth.recovered(), truth.events(), truth.commits());

    assertThat(Demo.check(truth, store, replay, jsonl)).isEmpty();
    assertThat(Demo.check(wrong, store, replay, jsonl)).containsExactly(
        "printed:    " + wrong.lines().get(2).strip(),
        "from files: " + truth.lines().get(2).strip());
  }

  @Test
  void theFilesTellTheStoryOfTheReadme() {
    RunSummary s = RunSummary.read(store, PLAN);
    assertThat(s.succeeded() + s.failed() + s.skipped()).isEqualTo(s.tasks());

    // p1 was killed while hung in its second attempt; p2 after the unanswered stop request.
    assertThat(s.kills()).extracting(WorkerKill::worker).containsExactly("p1", "p2");
    Map<String, List<String>> claims = claimsByWorker();
    assertThat(claims.get("p1")).hasSize(LocalOrchestrator.HANG_IN_ATTEMPT)
        .endsWith(s.kills().get(0).operation());
    assertThat(claims.get("p2")).hasSize(LocalOrchestrator.HANG_IN_ATTEMPT)
        .endsWith(s.kills().get(1).operation());

    // Session 2 found p1's attempt running and ran it again to its end; found p2's stop
    // requested and cancelled it; anything else it found was pending.
    assertThat(s.recovered()).filteredOn(r -> r.from() == OperationStatus.RUNNING)
        .singleElement().satisfies(r -> {
          assertThat(r.operation()).isEqualTo(s.kills().get(0).operation());
          assertThat(r.end()).isIn(OperationStatus.SUCCEEDED, OperationStatus.FAILED);
        });
    assertThat(s.recovered()).filteredOn(r -> r.from() == OperationStatus.STOP_REQUESTED)
        .singleElement().satisfies(r -> {
          assertThat(r.operation()).isEqualTo(s.kills().get(1).operation());
          assertThat(r.end()).isEqualTo(OperationStatus.CANCELLED);
        });
    assertThat(s.recovered()).extracting(RunSummary.Recovery::from)
        .allMatch(from -> from == OperationStatus.RUNNING
            || from == OperationStatus.STOP_REQUESTED || from == OperationStatus.PENDING);

    // p3 ran attempts to their end (which threads work depends on timing, so it is not checked).
    PlanState end;
    try (FileLedgerStore ledgers = FileLedgerStore.openReadOnly(store)) {
      end = ledgers.ledger(PLAN, PlanState.class).load().state();
    }
    assertThat(end.complete()).isTrue();
    assertThat(end.operations().values()).filteredOn(o -> "p3".equals(o.owner())).isNotEmpty()
        .allMatch(o -> o.status() == OperationStatus.SUCCEEDED
            || o.status() == OperationStatus.FAILED);

    // What counts: a failed task has exactly maxAttempts failed attempts; cancelled ones are
    // not among them.
    assertThat(end.tasks().values()).filteredOn(t -> t.status() == TaskStatus.FAILED)
        .isNotEmpty().allMatch(t -> t.failures() == s.maxAttempts());
  }

  /** The operations each worker claimed, in journal order (operation.running events). */
  private static Map<String, List<String>> claimsByWorker() {
    try (FileLedgerStore ledgers = FileLedgerStore.openReadOnly(store);
        Stream<Event> all = ledgers.ledger(PLAN, JsonNode.class).replay(Cursor.START)) {
      return all.filter(e -> e.type().equals("operation.running"))
          .collect(Collectors.groupingBy(e -> e.payload().path("worker").asText(),
              Collectors.mapping(Event::operationId, Collectors.toList())));
    }
  }
}
