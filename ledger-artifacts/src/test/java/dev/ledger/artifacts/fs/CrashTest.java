package dev.ledger.artifacts.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.artifacts.CleanupMode;
import dev.ledger.testing.base.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A writer killed with SIGKILL in the middle of a put publishes nothing. */
class CrashTest {
  @TempDir
  Path dir;

  @Test
  void putKilledMidwayLeavesOnlyATempFileThatCollectionRemoves() throws Exception {
    Path base = dir.resolve("store");
    try (ChildJvm child = ChildJvm.start(List.of("-Xmx64m"), CrashChild.class,
        base.toString())) {
      assertThat(child.nextLine(Duration.ofSeconds(60))).isEqualTo("streaming");
      child.kill();
    }
    try (FileArtifactStore store = FileArtifactStore.open(base)) {
      assertThat(store.blobs().verify().checked()).isZero();
      List<Path> temps;
      try (Stream<Path> files = Files.list(store.directory().resolve("tmp"))) {
        temps = files.toList();
      }
      assertThat(temps).singleElement();
      Files.setLastModifiedTime(temps.get(0),
          FileTime.from(Instant.now().minus(Duration.ofHours(2))));
      store.collectGarbage(Duration.ofMinutes(5), CleanupMode.DELETE);
      assertThat(temps.get(0)).doesNotExist();
      assertThat(store.blobs().put(new byte[] {1, 2, 3})).isNotNull(); // still writable
    }
  }
}
