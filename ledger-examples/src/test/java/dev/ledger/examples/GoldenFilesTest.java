package dev.ledger.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.artifacts.ArtifactOptions;
import dev.ledger.artifacts.fs.FileArtifactStore;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.fs.FileLedgerStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The deterministic scenario on the real file stores in a temporary directory, compared byte
 * for byte with the files checked in under {@code src/test/resources/golden/orchestrator}: the
 * ledger, its journal, checkpoint and command index, the blobs, the snapshots, the markers and
 * the (empty, since no writer holds them) lock files. Nothing is excluded. Empty directories
 * ({@code artifacts/tmp}) are not compared because git does not keep them. The JSON Lines
 * export of an offline replay is compared with {@code golden/journal.jsonl}.
 *
 * <p>After an intended change of the files, regenerate with
 * {@code mvn -pl ledger-examples test -Dtest=GoldenFilesTest -Dledger.golden.update=true},
 * then review the diff like any other change.
 */
class GoldenFilesTest {
  private static final Path GOLDEN = Path.of("src", "test", "resources", "golden");

  @TempDir Path dir;

  @Test
  void theScenarioWritesExactlyTheGoldenFiles() throws IOException {
    LedgerOptions options = LedgerOptions.defaults().withClock(DeterministicScenario.CLOCK);
    Path store = dir.resolve("store");
    DeterministicScenario.run(() -> new DeterministicScenario.Stores(
        FileLedgerStore.open(store, options), FileArtifactStore.open(store,
            ArtifactOptions.defaults().withClock(DeterministicScenario.CLOCK)), true));
    ByteArrayOutputStream jsonl = new ByteArrayOutputStream();
    JournalReplay.replay(store, jsonl);

    Map<String, byte[]> actual = files(store);
    actual.put("../journal.jsonl", jsonl.toByteArray());
    Path golden = GOLDEN.resolve("orchestrator");
    if (Boolean.getBoolean("ledger.golden.update")) {
      write(golden, actual);
    }

    assertThat(golden).as("golden files (the test runs from the module directory)")
        .isDirectory();
    Map<String, byte[]> expected = files(golden);
    expected.put("../journal.jsonl", Files.readAllBytes(GOLDEN.resolve("journal.jsonl")));
    assertThat(actual.keySet()).containsExactlyElementsOf(expected.keySet());
    for (String name : expected.keySet()) {
      assertThat(actual.get(name)).as(name).isEqualTo(expected.get(name));
    }
    assertThat(actual.get("ledgers/test-plan/.lock")).isEmpty();
  }

  private static Map<String, byte[]> files(Path root) throws IOException {
    Map<String, byte[]> files = new TreeMap<>();
    try (Stream<Path> all = Files.walk(root)) {
      for (Path p : (Iterable<Path>) all.filter(Files::isRegularFile)::iterator) {
        files.put(root.relativize(p).toString().replace('\\', '/'), Files.readAllBytes(p));
      }
    }
    return files;
  }

  private static void write(Path golden, Map<String, byte[]> files) throws IOException {
    if (Files.exists(golden)) {
      try (Stream<Path> old = Files.walk(golden)) {
        for (Path p : (Iterable<Path>) old.sorted((a, b) -> b.compareTo(a))::iterator) {
          Files.delete(p);
        }
      }
    }
    for (Map.Entry<String, byte[]> e : files.entrySet()) {
      Path target = golden.resolve(e.getKey()).normalize();
      Files.createDirectories(target.getParent());
      Files.write(target, e.getValue());
    }
  }
}
