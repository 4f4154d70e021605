package dev.ledger.core.fs;

import dev.ledger.core.internal.io.SafeFiles;
import java.io.Closeable;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Reads newline-terminated lines from one file, from a start offset, through a 64 KiB
 * buffer. A line longer than the bound is reported (not buffered whole), so a garbage file
 * without newlines cannot exhaust memory.
 *
 * <p>A zero byte never occurs in a record line: the journal's last segment ends with zero
 * padding a writer has preallocated (see {@link JournalFiles}). A zero byte where a line
 * starts is reported as {@link Kind#PADDING}, and a line that runs into one before its
 * newline as {@link Kind#ZERO_CUT}; {@link #skipZeros} moves past a run of them.
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
    OVERSIZED,
    /**
     * A zero byte where a line starts: preallocated space, or data lost to zeros. Nothing is
     * consumed; {@link #skipZeros} moves past the run.
     */
    PADDING,
    /**
     * Bytes that run into a zero byte before any newline: a write torn inside preallocated
     * space, or damage. The zero bytes are not consumed (the next call reports PADDING).
     */
    ZERO_CUT
  }

  private static final byte[] ZEROS = new byte[64 * 1024];
  private static final VarHandle WORDS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long NEWLINES = 0x0a0a0a0a0a0a0a0aL;

  private static final int BUFFER_BYTES = 64 * 1024;
  private static final int MIN_BUFFER_BYTES = 1024;

  private final FileChannel channel;
  /** Whether {@link #close} closes {@link #channel} (false for a caller's channel). */
  private final boolean owned;
  private final int maxLine;
  private byte[] buffer;
  private long bufferOffset;
  private int start;
  private int end;
  private boolean stuck;

  LineReader(Path file, long offset, int maxLine) throws IOException {
    this.channel = SafeFiles.openRead(file);
    this.owned = true;
    this.maxLine = maxLine;
    this.bufferOffset = offset;
    this.buffer = new byte[BUFFER_BYTES];
  }

  /**
   * Reads {@code channel}, a caller's channel that {@link #close} leaves open, from
   * {@code offset}; {@code size} is the file's size as the caller knows it, and only sizes
   * the first buffer (a file that grew is still read to its end): a writer reopening a
   * ledger whose journal ends at its checkpoint reads nothing, and allocates no 64 KiB for it.
   */
  LineReader(FileChannel channel, long offset, long size, int maxLine) {
    this.channel = channel;
    this.owned = false;
    this.maxLine = maxLine;
    this.bufferOffset = offset;
    long rest = Math.max(0, size - offset) + 1;
    this.buffer = new byte[(int) Math.max(MIN_BUFFER_BYTES, Math.min(BUFFER_BYTES, rest))];
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
      for (int i = stop(buffer, scanFrom, end); i < end; i++) {
        byte b = buffer[i];
        if (b == '\n') {
          Line line = copy(i - start, Kind.COMPLETE);
          start = i + 1;
          return line;
        }
        if (b == 0) {
          if (i == start) {
            return new Line(bufferOffset + start, new byte[0], 0, Kind.PADDING);
          }
          if (i - start > maxLine) {
            stuck = true;
            return copy(64, Kind.OVERSIZED);
          }
          Line line = copy(i - start, Kind.ZERO_CUT);
          start = i;
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
        buffer = Arrays.copyOf(buffer,
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

  /**
   * Moves past the zero bytes at the current position.
   *
   * @return true if a non-zero byte follows them (the next line starts there), false if they
   *     run to the end of the file
   */
  boolean skipZeros() throws IOException {
    if (stuck) {
      return false;
    }
    while (true) {
      while (start < end) {
        int chunk = Math.min(end - start, ZEROS.length);
        int mismatch = Arrays.mismatch(buffer, start, start + chunk, ZEROS, 0, chunk);
        if (mismatch >= 0) {
          start += mismatch;
          return true;
        }
        start += chunk;
      }
      bufferOffset += end;
      start = 0;
      end = 0;
      int read = channel.read(ByteBuffer.wrap(buffer), bufferOffset);
      if (read < 0) {
        return false;
      }
      end = read;
    }
  }

  /**
   * The first index in {@code [from, end)} whose 8-byte word holds a newline or a zero byte,
   * or the start of the last partial word: the byte loop goes on from there. Lines are long
   * (a record of 100 events is tens of KiB) and a byte-at-a-time search for the newline cost
   * as much as reading the file; a word at a time costs an eighth of that.
   */
  private static int stop(byte[] bytes, int from, int end) {
    int i = from;
    while (i + Long.BYTES <= end) {
      long word = (long) WORDS.get(bytes, i);
      if (hasZeroByte(word) || hasZeroByte(word ^ NEWLINES)) {
        return i;
      }
      i += Long.BYTES;
    }
    return i;
  }

  /** Whether a byte of {@code word} is zero (exact for the word as a whole). */
  private static boolean hasZeroByte(long word) {
    return ((word - 0x0101010101010101L) & ~word & 0x8080808080808080L) != 0;
  }

  private Line copy(int length, Kind kind) {
    byte[] bytes = new byte[length];
    System.arraycopy(buffer, start, bytes, 0, length);
    return new Line(bufferOffset + start, bytes, length, kind);
  }

  @Override
  public void close() throws IOException {
    if (owned) {
      channel.close();
    }
  }
}
