package dev.ledger.artifacts.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ledger.core.LedgerIOException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Opening an artifact store where a regular file is says so plainly, and changes nothing. */
class OpeningTest {
  @TempDir
  Path dir;

  @Test
  void openingOnARegularFileSaysNotADirectory() throws IOException {
    Path file = Files.writeString(dir.resolve("notes.txt"), "keep me");
    for (Path base : new Path[] {file, file.resolve("below")}) {
      Throwable thrown = catchThrowable(() -> FileArtifactStore.open(base).close());
      assertThat(thrown).as("%s", base).isInstanceOf(LedgerIOException.class)
          .hasMessageContaining(file + ": not a directory")
          .hasMessageNotContaining("Exception");
    }
    assertThat(Files.readString(file)).isEqualTo("keep me");
    try (var entries = Files.list(dir)) {
      assertThat(entries.toList()).containsExactly(file);
    }
  }
}
