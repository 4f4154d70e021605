package dev.ledger.core.fs;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Reads newline-terminated lines from one file, from a start offset, through a 64 KiB
 * buffer. A line longer than the bound is reported (not buffered whole), so a garbage file
 * without newlines cannot exhaust memory.
 */
final class LineReader implements Closeable {
  /** One line: its bytes in {@code bytes[0..length)}, without the newline. */
  record Line(long offset, byte[] bytes, int length, Kind kind) {}

  /** What was found at the current position. */
  enum Kind {
    /** A complete line, terminated by a newline. */
    COMPLETE,
    /** Bytes up to end of file with no newline: an append in progress or a torn tail. */
    INCOMPLETE,
    /** A line longer than the bound; the reader cannot continue past it. */
    OVERSIZED
  }

  private final FileChannel channel;
  private final int maxLine;
  private byte[] buffer = new byte[64 * 1024];
  private long bufferOffset;
  private int start;
  private int end;
  private boolean stuck;

  LineReader(Path file, long offset, int maxLine) throws IOException {
    this.channel = FileChannel.open(file, StandardOpenOption.READ);
    this.maxLine = maxLine;
    this.bufferOffset = offset;
  }

  /** The file offset of the next line. */
  long position() {
    return bufferOffset + start;
  }

  /** The next line, or null at a clean end of file (after a newline, or at offset 0). */
  Line next() throws IOException {
    if (stuck) {
      return null;
    }
    int scanFrom = start;
    while (true) {
      for (int i = scanFrom; i < end; i++) {
        if (buffer[i] == '\n') {
          Line line = copy(i - start, Kind.COMPLETE);
          start = i + 1;
          return line;
        }
      }
      scanFrom = end;
      if (end - start > maxLine) {
        stuck = true;
        return copy(Math.min(end - start, 64), Kind.OVERSIZED);
      }
      if (start > 0) {
        System.arraycopy(buffer, start, buffer, 0, end - start);
        bufferOffset += start;
        end -= start;
        scanFrom -= start;
        start = 0;
      }
      if (end == buffer.length) {
        buffer = java.util.Arrays.copyOf(buffer,
            (int) Math.min((long) buffer.length * 2, (long) maxLine + 2));
      }
      int read = channel.read(ByteBuffer.wrap(buffer, end, buffer.length - end),
          bufferOffset + end);
      if (read < 0) {
        if (start == end) {
          return null;
        }
        stuck = true;
        return copy(end - start, Kind.INCOMPLETE);
      }
      end += read;
    }
  }

  private Line copy(int length, Kind kind) {
    byte[] bytes = new byte[length];
    System.arraycopy(buffer, start, bytes, 0, length);
    return new Line(bufferOffset + start, bytes, length, kind);
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
