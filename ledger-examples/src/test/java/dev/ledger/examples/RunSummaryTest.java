package dev.ledger.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.artifacts.ArtifactOptions;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.SnapshotCursor;
import dev.ledger.artifacts.fs.FileArtifactStore;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.fs.FileLedgerStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The summary as an orchestrator knows it ({@link RunSummary#of}) equals the one recomputed
 * from the files ({@link RunSummary#read}), on the deterministic scenario written to the real
 * file stores; damage to the files makes them differ; the wording agrees in number.
 */
class RunSummaryTest {
  @TempDir Path dir;
  private Path store;
  private RunSummary known;

  @BeforeEach
  void runTheScenario() {
    store = dir.resolve("store");
    LedgerOptions options = LedgerOptions.defaults().withClock(DeterministicScenario.CLOCK);
    ArtifactOptions artifactOptions =
        ArtifactOptions.defaults().withClock(DeterministicScenario.CLOCK);
    DeterministicScenario.Result r = DeterministicScenario.run(() ->
        new DeterministicScenario.Stores(FileLedgerStore.open(store, options),
            FileArtifactStore.open(store, artifactOptions), true));
    List<Operation> recovered = new ArrayList<>(r.recoveredInSession2());
    recovered.addAll(r.recoveredInSession3());
    try (FileLedgerStore ledgers = FileLedgerStore.open(store, options);
        FileArtifactStore artifacts = FileArtifactStore.open(store, artifactOptions)) {
      long events;
      try (Stream<Event> all = ledgers.ledger(DeterministicScenario.PLAN, PlanState.class)
          .replay(Cursor.START)) {
        events = all.count();
      }
      known = RunSummary.of(r.finalState(), artifacts, List.of(), recovered, events);
    }
  }

  @Test
  void theFilesGiveTheSummaryTheOrchestratorKnows() {
    RunSummary fromFiles = RunSummary.read(store, DeterministicScenario.PLAN);

    assertThat(fromFiles).isEqualTo(known);
    assertThat(known.tasks()).isEqualTo(DeterministicScenario.TASKS);
    assertThat(known.attempts()).isEqualTo(known.succeededAttempts() + known.failedAttempts()
        + known.cancelledAttempts());
    assertThat(known.snapshots()).isEqualTo(known.succeededAttempts() + known.failedAttempts()
        + known.cancelledWithSnapshot());
    assertThat(known.recovered()).extracting(RunSummary.Recovery::from)
        .contains(OperationStatus.PENDING, OperationStatus.RUNNING,
            OperationStatus.STOP_REQUESTED);
  }

  @Test
  void aMissingSnapshotFileMakesTheFilesDisagree() throws IOException {
    ArtifactSnapshot any;
    Path file;
    try (FileArtifactStore artifacts = FileArtifactStore.open(store)) {
      any = artifacts.list(DeterministicScenario.PLAN, SnapshotCursor.START, 1).snapshots().get(0);
      file = artifacts.snapshotPath(DeterministicScenario.PLAN, any.snapshotId());
    }
    Files.delete(file);

    RunSummary fromFiles = RunSummary.read(store, DeterministicScenario.PLAN);

    assertThat(fromFiles.snapshots()).isEqualTo(known.snapshots() - 1);
    assertThat(fromFiles).isNotEqualTo(known);
  }

  @Test
  void aDamagedBlobIsReportedNotCounted() throws IOException {
    Path blob;
    try (Stream<Path> all = Files.walk(store.resolve("artifacts").resolve("blobs"))) {
      blob = all.filter(Files::isRegularFile).findFirst().orElseThrow();
    }
    blob.toFile().setWritable(true);
    Files.write(blob, new byte[] {'x'});

    assertThatThrownBy(() -> RunSummary.read(store, DeterministicScenario.PLAN))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("damaged blobs");
  }

  @Test
  void countsAgreeInNumber() {
    RunSummary one = new RunSummary("p", 1, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1, List.of(),
        List.of(new RunSummary.Recovery("t01.a1", OperationStatus.RUNNING,
            OperationStatus.SUCCEEDED)), 1, 1);

    assertThat(one.lines()).containsExactly(
        "  tasks      1: 1 succeeded, 0 failed (1 failed attempt, the most allowed), 0 skipped"
            + " (a dependency failed)",
        "  attempts   1: 1 succeeded, 0 failed, 0 cancelled (stopped by the drain or by recovery;"
            + " not counted against their task); 1 retry",
        "  conflicts  1 commit lost the race for a revision and was retried",
        "  artifacts  1 snapshot: one per succeeded or failed attempt, plus 0 frozen by"
            + " cancelled attempts before their stop request came; 1 blob",
        "  recovered  1 running -> 1 succeeded (t01.a1)",
        "  recovered  0 stop_requested",
        "  recovered  0 pending",
        "  journal    1 event in 1 commit");
  }
}
