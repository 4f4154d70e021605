package dev.ledger.examples;

import static dev.ledger.testing.DirectoryAssert.assertThatDirectory;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.artifacts.ArtifactOptions;
import dev.ledger.artifacts.fs.FileArtifactStore;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.fs.FileLedgerStore;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The deterministic scenario on the real file stores in a temporary directory, compared byte
 * for byte with the files checked in under {@code src/test/resources/golden}: in
 * {@code orchestrator/} the ledger, its journal, checkpoint and command index, the blobs, the
 * snapshots, the markers and the (empty, since no writer holds them) lock files; beside it
 * {@code journal.jsonl}, the JSON Lines export of an offline replay. Nothing is excluded.
 * Empty directories ({@code artifacts/tmp}) are not compared because git does not keep them.
 *
 * <p>After an intended change of the files, regenerate with
 * {@code mvn -pl ledger-examples test -Dtest=GoldenFilesTest -Dledger.golden.update=true},
 * then review the diff like any other change.
 */
class GoldenFilesTest {
  @TempDir Path dir;

  @Test
  void theScenarioWritesExactlyTheGoldenFiles() throws IOException {
    LedgerOptions options = LedgerOptions.defaults().withClock(DeterministicScenario.CLOCK);
    Path tree = dir.resolve("golden");
    Path store = tree.resolve("orchestrator");
    DeterministicScenario.run(() -> new DeterministicScenario.Stores(
        FileLedgerStore.open(store, options), FileArtifactStore.open(store,
            ArtifactOptions.defaults().withClock(DeterministicScenario.CLOCK)), true));
    try (OutputStream jsonl = Files.newOutputStream(tree.resolve("journal.jsonl"))) {
      JournalReplay.replay(store, jsonl);
    }

    assertThat(store.resolve("ledgers/test-plan/.lock")).isEmptyFile();
    assertThatDirectory(tree).matchesGolden("golden");
  }
}
