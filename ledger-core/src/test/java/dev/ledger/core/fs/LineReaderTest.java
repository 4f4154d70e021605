package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The line reader finds every newline and zero byte wherever it falls in a word: it scans
 * 8 bytes at a time, so offsets and lengths around word and buffer edges are what matter.
 */
@ExtendWith(SeedExtension.class)
class LineReaderTest {
  @TempDir
  Path dir;

  /**
   * A caller's channel (the writer's recovery) is read from the caller's offset with a first
   * buffer sized by the size the caller knew: lines longer than that buffer, and bytes
   * written after the size was read, still read back whole; closing the reader leaves the
   * channel open.
   */
  @Test
  void aCallersChannelReadsEveryLineAndStaysOpen(TestSeed seed) throws Exception {
    Random random = seed.random();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    List<byte[]> lines = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      int length = random.nextInt(i % 7 == 0 ? 9_000 : 300);
      byte[] line = new byte[length];
      for (int j = 0; j < length; j++) {
        line[j] = (byte) ('a' + random.nextInt(26));
      }
      lines.add(line);
      out.write(line);
      out.write('\n');
    }
    byte[] head = "first line\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    Path file = dir.resolve("lines");
    Files.write(file, head);
    try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(file,
        java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
      long known = channel.size(); // the caller's size, before the rest is appended
      channel.write(java.nio.ByteBuffer.wrap(out.toByteArray()), known);
      try (LineReader reader = new LineReader(channel, head.length, known, 1 << 20)) {
        readsBack(reader, lines, head.length, seed);
        assertThat(reader.next()).as("%s", seed).isNull();
      }
      assertThat(channel.isOpen()).isTrue();
    }
  }

  @Test
  void linesOfEveryLengthAndOffsetReadBackExactly(TestSeed seed) throws Exception {
    Random random = seed.random();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    List<byte[]> lines = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      int length = i < 40 ? i : random.nextInt(i % 10 == 0 ? 70_000 : 40);
      byte[] line = new byte[length];
      for (int j = 0; j < length; j++) {
        line[j] = (byte) (1 + random.nextInt(255));
        if (line[j] == '\n') {
          line[j] = 'x';
        }
      }
      lines.add(line);
      out.write(line);
      out.write('\n');
    }
    int padding = 1 + random.nextInt(20);
    out.write(new byte[padding]);
    Path file = dir.resolve("lines");
    Files.write(file, out.toByteArray());
    try (LineReader reader = new LineReader(file, 0, 1 << 20)) {
      long offset = readsBack(reader, lines, 0, seed);
      LineReader.Line pad = reader.next();
      assertThat(pad.kind()).as("%s", seed).isEqualTo(LineReader.Kind.PADDING);
      assertThat(pad.offset()).as("%s", seed).isEqualTo(offset);
      assertThat(reader.skipZeros()).as("%s", seed).isFalse();
    }
  }

  @Test
  void aZeroAtAnyPlaceInAWordCutsTheLine(TestSeed seed) throws Exception {
    for (int at = 0; at < 24; at++) {
      byte[] bytes = new byte[40];
      java.util.Arrays.fill(bytes, (byte) 'a');
      bytes[at] = 0;
      bytes[39] = '\n';
      Path file = dir.resolve("cut-" + at);
      Files.write(file, bytes);
      try (LineReader reader = new LineReader(file, 0, 1 << 20)) {
        LineReader.Line line = reader.next();
        if (at == 0) {
          assertThat(line.kind()).as("%s zero at %d", seed, at)
              .isEqualTo(LineReader.Kind.PADDING);
        } else {
          assertThat(line.kind()).as("%s zero at %d", seed, at)
              .isEqualTo(LineReader.Kind.ZERO_CUT);
          assertThat(line.length()).as("%s zero at %d", seed, at).isEqualTo(at);
        }
      }
    }
  }

  /**
   * Reads {@code lines} back from {@code reader}, the first at {@code offset}, each complete
   * at its offset with its bytes; returns the offset after the last.
   */
  private static long readsBack(LineReader reader, List<byte[]> lines, long offset,
      TestSeed seed) throws IOException {
    for (byte[] expected : lines) {
      LineReader.Line line = reader.next();
      assertThat(line.kind()).as("%s line at %d", seed, offset)
          .isEqualTo(LineReader.Kind.COMPLETE);
      assertThat(line.offset()).as("%s", seed).isEqualTo(offset);
      assertThat(java.util.Arrays.copyOf(line.bytes(), line.length())).as("%s", seed)
          .isEqualTo(expected);
      offset += expected.length + 1;
    }
    return offset;
  }
}
