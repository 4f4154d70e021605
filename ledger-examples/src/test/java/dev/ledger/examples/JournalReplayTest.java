package dev.ledger.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.artifacts.ArtifactOptions;
import dev.ledger.artifacts.fs.FileArtifactStore;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.testing.base.DirectorySnapshot;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Offline replay reads a copied directory like the original and changes neither. */
class JournalReplayTest {
  @TempDir Path dir;

  @Test
  void aCopiedDirectoryReplaysToTheSameJournalAndNothingIsWritten() throws IOException {
    LedgerOptions options = LedgerOptions.defaults().withClock(DeterministicScenario.CLOCK);
    Path original = dir.resolve("original");
    DeterministicScenario.run(() -> new DeterministicScenario.Stores(
        FileLedgerStore.open(original, options), FileArtifactStore.open(original,
            ArtifactOptions.defaults().withClock(DeterministicScenario.CLOCK)), true));
    Path copy = dir.resolve("copy");
    copyTree(original, copy);
    DirectorySnapshot before = files(copy);

    ByteArrayOutputStream fromOriginal = new ByteArrayOutputStream();
    ByteArrayOutputStream fromCopy = new ByteArrayOutputStream();
    JournalReplay.Result r = JournalReplay.replay(original, fromOriginal);
    JournalReplay.replay(copy, fromCopy);

    assertThat(fromCopy.toByteArray()).isEqualTo(fromOriginal.toByteArray());
    assertThat(before.diff(files(copy))).isEmpty();
    TaskTimeline timeline = r.timelines().get(DeterministicScenario.PLAN);
    assertThat(timeline.lines()).hasSize(DeterministicScenario.TASKS);
    assertThat(timeline.lines().get(0)).startsWith("t01  succeeded | a1 pending > running(w1)");
    assertThat(r.events()).isEqualTo(timeline.events());
    assertThat(r.pages()).isGreaterThan(1);
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> all = Files.walk(from)) {
      for (Path p : (Iterable<Path>) all::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
  }

  /** Every path under {@code root} with each file's content. */
  private static DirectorySnapshot files(Path root) throws IOException {
    return DirectorySnapshot.of(root, DirectorySnapshot.Options.of(
        DirectorySnapshot.Aspect.CONTENT));
  }
}
