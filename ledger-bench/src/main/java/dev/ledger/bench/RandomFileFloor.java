package dev.ledger.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;

/**
 * The floor of a commit on a ledger whose writer is not open: per commit, open one of
 * {@code count} files (the next of a random order), append a record as long as a ledger's
 * later commit record at its end, {@code force(false)} it and close it. Each file starts with
 * a record as long as a ledger's first (as a ledger's journal is after its first commit), so
 * that the appends land at the same offsets, in the same blocks, as the ledgers' records: an
 * append that changes only the file's size, which {@code fdatasync} must then make durable
 * with a file-system journal commit (a ledger whose writer was parked has had its zeros cut,
 * so its commit must do as much). No lock file, no read of the file, no check: what the disk
 * allows for an append to a random closed file.
 */
final class RandomFileFloor implements CommitTarget {
  private final Path dir;
  private final int[] order;
  private final byte[] first;
  private final byte[] record;
  private int next;
  private long counter;

  private RandomFileFloor(Path dir, int count, int firstBytes, int recordBytes, Random random) {
    this.dir = dir;
    this.first = line(firstBytes);
    this.record = line(recordBytes);
    this.order = ManyLedgersScenario.permutation(count, random);
  }

  private static byte[] line(int bytes) {
    byte[] line = new byte[bytes];
    Arrays.fill(line, (byte) 'x');
    line[bytes - 1] = '\n';
    return line;
  }

  /**
   * Creates {@code count} files of one {@code firstBytes} record each in {@code dir}, without
   * forcing them (the caller makes the setup durable), and returns the floor over them, which
   * appends {@code recordBytes} per commit.
   *
   * @throws IOException if a file cannot be written
   */
  static RandomFileFloor create(Path dir, int count, int firstBytes, int recordBytes,
      Random random) throws IOException {
    Files.createDirectories(dir);
    RandomFileFloor floor = new RandomFileFloor(dir, count, firstBytes, recordBytes, random);
    for (int i = 0; i < count; i++) {
      try (FileChannel c = FileChannel.open(floor.file(i), StandardOpenOption.CREATE,
          StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
        floor.write(c, floor.first, 0);
      }
    }
    return floor;
  }

  private Path file(int i) {
    return dir.resolve(String.format(Locale.ROOT, "f%07d", i));
  }

  @Override
  public void commit() throws IOException {
    try (FileChannel c = FileChannel.open(file(order[next]), StandardOpenOption.WRITE)) {
      write(c, record, c.size());
      c.force(false);
    }
    next = (next + 1) % order.length;
  }

  private void write(FileChannel c, byte[] line, long at) throws IOException {
    byte[] n = Long.toString(++counter).getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(n, 0, line, 0, n.length);
    ByteBuffer buffer = ByteBuffer.wrap(line);
    while (buffer.hasRemaining()) {
      at += c.write(buffer, at);
    }
  }

  @Override
  public void close() {
    // no open files between commits
  }
}
