package dev.ledger.core.fs;

import dev.ledger.core.LedgerIOException;
import dev.ledger.core.internal.io.SafeFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.Objects;

/**
 * Where the checkpoint stands in the journal, and how many journal bytes follow it: what a
 * cold open replays, and what a patch log's caller weighs against its data to decide on a
 * checkpoint ({@link dev.ledger.core.spi.PatchLog#journalBytesSinceCheckpoint}).
 *
 * <p>Cheap on the commit path: the checkpoint's header (revision, sequence, journal position;
 * no state) is remembered with the identity of the {@code state.json} it came from (file key,
 * size, modification time) and read again only when that changes, so a caller polling with a
 * large checkpoint does not re-read it; segments are sized by {@code stat}. Only the last segment may end with
 * preallocated zeros (see {@link JournalFiles}): its data ends where the caller's last write
 * ended when a one-byte read confirms nothing follows there, and otherwise at its last
 * non-zero byte, found by reading back from its end (at most the preallocated space).
 * Thread-safe.
 */
final class JournalGrowth {
  /** A journal position: a segment and a byte offset in it. */
  record Position(long segment, long offset) {}

  /** The checkpoint's header (state null), and the {@code state.json} it was read from. */
  private record Mark(Object fileKey, long size, FileTime modified, Checkpoint header) {}

  private static final Position START = new Position(1, 0);
  private static final int CHUNK = 64 * 1024;

  private final JournalFiles journal;
  private final Path stateFile;
  private final LedgerReader reader;
  private volatile Mark mark;

  JournalGrowth(JournalFiles journal, Path stateFile, LedgerReader reader) {
    this.journal = journal;
    this.stateFile = stateFile;
    this.reader = reader;
  }

  /** Notes a checkpoint this process just wrote, under the ledger lock. */
  void written(Checkpoint checkpoint) {
    try {
      BasicFileAttributes a = attributes();
      mark = a == null ? null : new Mark(a.fileKey(), a.size(), a.lastModifiedTime(),
          new Checkpoint(checkpoint.root(), checkpoint.revision(), checkpoint.updatedAt(),
              checkpoint.nextSequence(), checkpoint.segment(), checkpoint.offset(), null,
              checkpoint.stateVersion()));
    } catch (IOException e) {
      mark = null;
    }
  }

  /**
   * The checkpoint without its state, or null if there is none: from memory while
   * {@code state.json} is the file it was read from.
   *
   * @throws dev.ledger.core.CorruptLedgerException if the checkpoint is damaged
   * @throws LedgerIOException if it cannot be read
   */
  Checkpoint header() {
    try {
      BasicFileAttributes a = attributes();
      if (a == null) {
        return null;
      }
      Mark m = mark;
      if (m != null && Objects.equals(m.fileKey(), a.fileKey()) && m.size() == a.size()
          && m.modified().equals(a.lastModifiedTime())) {
        return m.header();
      }
      Checkpoint c = reader.readCheckpointHeader();
      if (c != null) {
        mark = new Mark(a.fileKey(), a.size(), a.lastModifiedTime(), c);
      }
      return c;
    } catch (IOException e) {
      throw new LedgerIOException("reading checkpoint attributes", stateFile, e);
    }
  }

  /**
   * Bytes of journal records after the checkpoint's position (the whole journal without a
   * checkpoint).
   *
   * @param lastWrite where this process last appended, or null; a hint for the last segment
   */
  long bytesSinceCheckpoint(Position lastWrite) {
    try {
      Checkpoint c = header();
      Position from = c == null ? START : new Position(c.segment(), c.offset());
      long total = 0;
      var bases = journal.bases();
      for (int i = 0; i < bases.size(); i++) {
        long base = bases.get(i);
        if (base < from.segment()) {
          continue;
        }
        Path segment = journal.segment(base);
        long size;
        try {
          size = Files.size(segment);
        } catch (NoSuchFileException e) {
          continue;
        }
        if (i == bases.size() - 1) {
          size = dataEnd(segment, size, lastWrite != null && lastWrite.segment() == base
              ? lastWrite.offset() : -1);
        }
        total += base == from.segment() ? Math.max(0, size - from.offset()) : size;
      }
      return total;
    } catch (IOException e) {
      throw new LedgerIOException("measuring the journal after the checkpoint", journal.dir(),
          e);
    }
  }

  private BasicFileAttributes attributes() throws IOException {
    try {
      return Files.readAttributes(stateFile, BasicFileAttributes.class,
          LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  /**
   * The end of the data in the last segment of {@code size} bytes: {@code known} when nothing
   * but zeros (or the end of the file) follows it, else just after the last non-zero byte.
   */
  private static long dataEnd(Path segment, long size, long known) throws IOException {
    if (known == size) {
      return size;
    }
    try (FileChannel channel = SafeFiles.openRead(segment)) {
      if (known >= 0 && known < size) {
        ByteBuffer one = ByteBuffer.allocate(1);
        if (channel.read(one, known) == 1 && one.get(0) == 0) {
          return known;
        }
      }
      ByteBuffer chunk = ByteBuffer.allocate(CHUNK);
      long to = size;
      while (to > 0) {
        long from = Math.max(0, to - CHUNK);
        chunk.clear().limit((int) (to - from));
        while (chunk.hasRemaining() && channel.read(chunk, from + chunk.position()) > 0) {
          // fill the chunk
        }
        for (int i = chunk.position() - 1; i >= 0; i--) {
          if (chunk.get(i) != 0) {
            return from + i + 1;
          }
        }
        to = from;
      }
      return 0;
    }
  }
}
