package dev.ledger.testing.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The documented faults and the power-cut model, on small files. */
class FaultyFileSystemTest {
  private static final int TRIALS = 300;

  @TempDir
  Path tmp;

  /**
   * A generator per trial. Not {@code new Random(trial)}: the first outputs of
   * {@code java.util.Random} for neighbouring small seeds are nearly the same.
   */
  private static Random random(int trial) {
    return new Random(new SplittableRandom(trial).nextLong());
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void write(FileChannel channel, String text) throws IOException {
    channel.write(ByteBuffer.wrap(utf8(text)));
  }

  private static void forceDirectory(Path dir) throws IOException {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }

  private static FileChannel append(Path file) throws IOException {
    return FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.APPEND);
  }

  @Test
  void forcedBytesAndBytesBeforeTheFirstUnforcedChangeSurviveEveryCut() throws IOException {
    Set<String> outcomes = new HashSet<>();
    for (int trial = 0; trial < TRIALS; trial++) {
      Path dir = Files.createDirectory(tmp.resolve("t" + trial));
      FaultyFileSystem fs = FaultyFileSystem.over(dir);
      Path file = fs.root().resolve("journal");
      try (FileChannel channel = append(file)) {
        write(channel, "forced;");
        channel.force(false);
        forceDirectory(fs.root());
        write(channel, "unforced");
      }
      String lost = fs.cutPower(random(trial));
      byte[] after = Files.readAllBytes(FaultyFileSystem.real(file));
      String text = new String(after, StandardCharsets.ISO_8859_1);
      assertThat(text).as("trial %s, lost %s", trial, lost).startsWith("forced;");
      assertThat(after.length).as("trial %s", trial).isBetween(7, 15);
      outcomes.add(text);
    }
    // Reverted, kept, torn at several points, zero-filled, bit-flipped: the model varies.
    assertThat(outcomes).contains("forced;", "forced;unforced").hasSizeGreaterThan(5);
  }

  @Test
  void forcedContentIsWhatTheLastForceCoveredAndChangesNothing() throws IOException {
    FaultyFileSystem fs = FaultyFileSystem.over(tmp);
    Path file = fs.root().resolve("journal");
    assertThat(fs.forcedContent(file)).isEmpty();
    try (FileChannel channel = append(file)) {
      write(channel, "one;");
      assertThat(fs.forcedContent(file)).as("never forced").isEmpty();
      channel.force(false);
      assertThat(fs.forcedContent(file)).isEqualTo(utf8("one;"));
      write(channel, "two;");
      assertThat(fs.forcedContent(FaultyFileSystem.real(file))).as("through the real path")
          .isEqualTo(utf8("one;"));
      assertThat(Files.readAllBytes(FaultyFileSystem.real(file))).isEqualTo(utf8("one;two;"));
      long forces = fs.count(Op.FORCE);
      channel.force(false);
      assertThat(fs.count(Op.FORCE)).isEqualTo(forces + 1);
      assertThat(fs.forcedContent(file)).isEqualTo(utf8("one;two;"));
    }
  }

  @Test
  void overwriteInTheMiddleNeverDamagesTheBytesBeforeIt() throws IOException {
    for (int trial = 0; trial < TRIALS; trial++) {
      Path dir = Files.createDirectory(tmp.resolve("t" + trial));
      FaultyFileSystem fs = FaultyFileSystem.over(dir);
      Path file = fs.root().resolve("data");
      try (FileChannel channel = append(file)) {
        write(channel, "0123456789");
        channel.force(false);
        forceDirectory(fs.root());
      }
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
        channel.write(ByteBuffer.wrap(utf8("xx")), 4);
      }
      fs.cutPower(random(trial));
      String text = Files.readString(FaultyFileSystem.real(file), StandardCharsets.ISO_8859_1);
      assertThat(text).as("trial %s", trial).startsWith("0123").hasSize(10);
    }
  }

  @Test
  void anUnforcedDirectoryEntryMayBeLostAndAForcedOneIsKept() throws IOException {
    boolean lostOnce = false;
    boolean keptOnce = false;
    for (int trial = 0; trial < 40; trial++) {
      Path dir = Files.createDirectory(tmp.resolve("t" + trial));
      FaultyFileSystem fs = FaultyFileSystem.over(dir);
      Path unforced = fs.root().resolve("unforced");
      Path forced = fs.root().resolve("forced");
      try (FileChannel channel = append(forced)) {
        write(channel, "f");
        channel.force(false);
      }
      forceDirectory(fs.root());
      try (FileChannel channel = append(unforced)) {
        write(channel, "u");
        channel.force(false);
      }
      fs.cutPower(random(trial));
      assertThat(Files.readString(FaultyFileSystem.real(forced))).isEqualTo("f");
      if (Files.exists(FaultyFileSystem.real(unforced))) {
        keptOnce = true;
        assertThat(Files.readString(FaultyFileSystem.real(unforced))).isEqualTo("u");
      } else {
        lostOnce = true;
      }
    }
    assertThat(lostOnce).as("an unforced entry lost in some cut").isTrue();
    assertThat(keptOnce).as("an unforced entry kept in some cut").isTrue();
  }

  @Test
  void channelsOpenedBeforeACutRefuseToWrite() throws IOException {
    FaultyFileSystem fs = FaultyFileSystem.over(tmp);
    try (FileChannel channel = append(fs.root().resolve("f"))) {
      write(channel, "a");
      fs.cutPower(new Random(1));
      assertThatThrownBy(() -> write(channel, "b")).isInstanceOf(IOException.class)
          .hasMessageContaining("power was cut");
      assertThatThrownBy(() -> channel.force(false)).isInstanceOf(IOException.class);
    }
    try (FileChannel channel = append(fs.root().resolve("g"))) {
      write(channel, "after the reboot");
    }
  }

  @Test
  void transientFailureHitsOnlyTheNthOperation() throws IOException {
    FaultyFileSystem fs = FaultyFileSystem.over(tmp);
    Path file = fs.root().resolve("f");
    try (FileChannel channel = append(file)) {
      write(channel, "1");
      fs.failAt(Op.WRITE, 2, Persistence.TRANSIENT);
      write(channel, "2");
      assertThatThrownBy(() -> write(channel, "3")).isInstanceOf(IOException.class)
          .hasMessageContaining("injected WRITE fault #3");
      write(channel, "4");
    }
    assertThat(Files.readString(FaultyFileSystem.real(file))).isEqualTo("124");
    assertThat(fs.count(Op.WRITE)).isEqualTo(4);
    assertThat(fs.injected()).isEqualTo(1);
  }

  @Test
  void persistentFailureHitsEveryLaterOperationUntilCleared() throws IOException {
    FaultyFileSystem fs = FaultyFileSystem.over(tmp);
    Path file = fs.root().resolve("f");
    try (FileChannel channel = append(file)) {
      fs.failAt(Op.FORCE, 1, Persistence.PERSISTENT);
      write(channel, "1");
      assertThatThrownBy(() -> channel.force(false)).isInstanceOf(IOException.class);
      assertThatThrownBy(() -> channel.force(false)).isInstanceOf(IOException.class);
      fs.clearFaults();
      channel.force(false);
    }
    assertThat(fs.injected()).isEqualTo(2);
  }

  @Test
  void fullDiskRefusesTheWriteThatDoesNotFit() throws IOException {
    FaultyFileSystem fs = FaultyFileSystem.over(tmp);
    Path file = fs.root().resolve("f");
    fs.limitBytes(5);
    try (FileChannel channel = append(file)) {
      write(channel, "1234");
      assertThatThrownBy(() -> write(channel, "56")).isInstanceOf(IOException.class)
          .hasMessageContaining("No space left on device");
      write(channel, "5");
    }
    assertThat(Files.readString(FaultyFileSystem.real(file))).isEqualTo("12345");
  }

  @Test
  void plannedPowerCutReplacesTheOperation() throws IOException {
    FaultyFileSystem fs = FaultyFileSystem.over(tmp);
    Path from = fs.root().resolve("a");
    Files.writeString(from, "content");
    fs.powerCutAt(Op.MOVE, 1, new Random(3));
    assertThatThrownBy(() -> Files.move(from, fs.root().resolve("b")))
        .isInstanceOf(IOException.class).hasMessageContaining("power cut during MOVE");
    assertThat(FaultyFileSystem.real(fs.root().resolve("b"))).doesNotExist();
    assertThat(fs.injected()).isEqualTo(1);
  }

  @Test
  void misuseIsRefusedWithTheOffendingValue() {
    FaultyFileSystem fs = FaultyFileSystem.over(tmp);
    assertThatThrownBy(() -> fs.failAt(Op.WRITE, 0, Persistence.TRANSIENT))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(": 0");
    assertThatThrownBy(() -> fs.limitBytes(-1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(": -1");
    assertThatThrownBy(() -> FaultyFileSystem.over(tmp.resolve("missing")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("missing");
    assertThatThrownBy(() -> FaultyFileSystem.real(tmp))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
