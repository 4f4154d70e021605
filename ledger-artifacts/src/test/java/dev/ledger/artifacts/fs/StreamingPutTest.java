package dev.ledger.artifacts.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.testing.base.ChildJvm;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A blob four times larger than the heap of the JVM storing it: put, read back and
 * verified, streaming.
 */
@ExtendWith(SeedExtension.class)
class StreamingPutTest {
  private static final int MIB = 256;

  @TempDir
  Path dir;

  @Test
  void largeStreamIsStoredAndVerifiedUnderASmallHeap(TestSeed seed) throws Exception {
    try (ChildJvm child = ChildJvm.start(List.of("-Xmx64m"), StreamingPutChild.class,
        dir.resolve("store").toString(), String.valueOf(MIB), String.valueOf(seed.value()))) {
      String line;
      try {
        line = child.nextLine(Duration.ofSeconds(120));
        child.awaitSuccess(Duration.ofSeconds(120));
      } catch (AssertionError e) {
        throw new AssertionError("generator " + seed + ": " + e.getMessage(), e);
      }
      assertThat(line).as("%s", seed).startsWith("OK ");
      String[] parts = line.split(" ");
      assertThat(Long.parseLong(parts[2])).isEqualTo(MIB * 1024L * 1024L);
      assertThat(Long.parseLong(parts[3])).isLessThanOrEqualTo(64L * 1024 * 1024);
    }
  }
}
