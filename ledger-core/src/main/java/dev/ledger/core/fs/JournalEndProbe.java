package dev.ledger.core.fs;

import dev.ledger.core.internal.io.SafeFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Whether anything was committed after a {@link PatchRecords.Mark}: the check a caught-up
 * view of a patch log makes before each transaction, by any process or store, answered in
 * two system calls when nothing was.
 *
 * <p>An {@code lstat} of the mark's segment gives its size and its identity. If the file
 * ends at the mark, no record follows there, and the next segment's name is looked up (a
 * roll), as {@link LedgerReader} does. If it is longer, the byte at the mark is read: a zero
 * byte (preallocated space; a record line has none) proves that no record follows in the
 * segment, and also that no segment follows it, since a writer that starts a new segment
 * first cuts the zeros after the last record of this one, forced before the next one exists
 * (the invariant the writer's own probe relies on, see {@code FileLedger.append}); no
 * lookup is needed then. A segment shorter than the mark, or missing, is not an answer: the
 * caller scans, which reports what is wrong.
 *
 * <p>The byte is read through a read channel kept on the segment while this store's writer
 * of the ledger keeps its own files open ({@link #keep}, from each patch commit, until
 * {@link #release}: parking, close, removal, or a ledger found replaced), so that the open
 * and close of the segment are paid once per segment, not per check; otherwise through a
 * channel opened for the one read. A kept channel is used only while the {@code lstat} of
 * the segment's name gives the file key it was opened on: a ledger deleted and created
 * again, or imported, under the same name has other files, and the check reads those. A
 * file system without file keys never keeps a channel.
 *
 * <p>Thread-safe: checks run one at a time.
 */
final class JournalEndProbe {
  private final JournalFiles journal;
  /** Whether a channel may be kept: set by the writer's commits, cleared by release. */
  private volatile boolean keep;
  /** The kept channel, its segment and its file's key, or null; guarded by this. */
  private FileChannel channel;
  private long channelSegment;
  private Object channelKey;

  JournalEndProbe(JournalFiles journal) {
    this.journal = journal;
  }

  /**
   * Whether nothing was committed after {@code mark}: no record starts at its position and
   * no segment follows its segment.
   *
   * @throws IOException if the segment is missing or cannot be read (the caller scans)
   */
  synchronized boolean nothingAfter(PatchRecords.Mark mark) throws IOException {
    Path path = journal.segment(mark.segment());
    BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class,
        LinkOption.NOFOLLOW_LINKS);
    long size = attributes.size();
    if (size < mark.end() || !attributes.isRegularFile()) {
      return false;
    }
    if (size == mark.end()) {
      return mark.segment() == mark.revision() + 1
          || !Files.exists(journal.segment(mark.revision() + 1));
    }
    Object key = attributes.fileKey();
    if (channel != null && (channelSegment != mark.segment() || key == null
        || !key.equals(channelKey))) {
      closeChannel();
    }
    if (channel == null && keep && key != null) {
      FileChannel opened = SafeFiles.openRead(path);
      // Kept only if the name gave the same file before and after the open.
      if (key.equals(Files.readAttributes(path, BasicFileAttributes.class,
          LinkOption.NOFOLLOW_LINKS).fileKey())) {
        channel = opened;
        channelSegment = mark.segment();
        channelKey = key;
      } else {
        opened.close();
      }
    }
    if (channel != null) {
      try {
        return zeroAt(channel, mark.end());
      } catch (IOException e) {
        closeChannel();
        throw e;
      }
    }
    try (FileChannel once = SafeFiles.openRead(path)) {
      return zeroAt(once, mark.end());
    }
  }

  private static boolean zeroAt(FileChannel channel, long offset) throws IOException {
    ByteBuffer one = ByteBuffer.allocate(1);
    return channel.read(one, offset) == 1 && one.get(0) == 0;
  }

  /**
   * Lets later checks keep a channel: this store's writer of the ledger holds its files open
   * (and {@link OpenWriters} bounds how many do), until {@link #release}. Never throws.
   */
  void keep() {
    keep = true;
  }

  /**
   * Closes the kept channel, if any, and keeps none until the next {@link #keep}: the writer
   * was parked or closed, or the ledger removed or found replaced. Never throws.
   */
  synchronized void release() {
    keep = false;
    closeChannel();
  }

  private void closeChannel() {
    FileChannel c = channel;
    channel = null;
    channelKey = null;
    if (c != null) {
      try {
        c.close();
      } catch (IOException e) {
        // A read-only channel has nothing to flush; the descriptor is gone either way.
      }
    }
  }
}
