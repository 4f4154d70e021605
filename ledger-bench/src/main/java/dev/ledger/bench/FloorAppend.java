package dev.ledger.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * The floor: append a record (300 bytes unless given) to one file and {@code force(false)} it,
 * per commit. No revision check, no encoding: what the disk allows for one forced append.
 *
 * <p>With {@code preallocated}, the file is first filled with zeros (real blocks, forced), and
 * records overwrite it from the start, wrapping around: the file's size never changes, as with
 * SQLite's reused write-ahead log, so {@code fdatasync} has no metadata to commit.
 */
final class FloorAppend implements CommitTarget {
  static final int RECORD_BYTES = 300;
  private final FileChannel channel;
  private final byte[] record;
  private static final long PREALLOCATED_BYTES = 16L << 20;
  private final boolean preallocated;
  private long end;
  private long counter;

  FloorAppend(Path file) throws IOException {
    this(file, false);
  }

  FloorAppend(Path file, boolean preallocated) throws IOException {
    this(file, preallocated, RECORD_BYTES);
  }

  /**
   * A floor writing records of {@code recordBytes} (at most a sixteenth of the preallocated
   * file), for a commit whose journal record is that long.
   */
  FloorAppend(Path file, boolean preallocated, int recordBytes) throws IOException {
    if (recordBytes < 32 || recordBytes > PREALLOCATED_BYTES / 16) {
      throw new IllegalArgumentException("record bytes out of range: " + recordBytes);
    }
    this.preallocated = preallocated;
    this.record = new byte[recordBytes];
    Files.createDirectories(file.getParent());
    channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.READ);
    end = channel.size();
    if (preallocated) {
      // Page-sized writes: a folio is sized by the write that creates it, and a commit that
      // dirties a large folio writes all of it back (as the ledger's preallocation notes).
      ByteBuffer zeros = ByteBuffer.allocate(4096);
      for (long at = end; at < PREALLOCATED_BYTES; at += zeros.capacity()) {
        zeros.clear();
        while (zeros.hasRemaining()) {
          channel.write(zeros, at + zeros.position());
        }
      }
      channel.force(true);
      end = 0;
    }
    Arrays.fill(record, (byte) 'x');
    record[record.length - 1] = '\n';
  }

  @Override
  public void commit() throws IOException {
    byte[] n = Long.toString(++counter).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    System.arraycopy(n, 0, record, 0, n.length);
    if (preallocated && end + record.length > PREALLOCATED_BYTES) {
      end = 0;
    }
    ByteBuffer buffer = ByteBuffer.wrap(record);
    while (buffer.hasRemaining()) {
      end += channel.write(buffer, end);
    }
    channel.force(false);
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
