package dev.ledger.core.fs;

import dev.ledger.core.internal.journal.CommitRecord;
import dev.ledger.core.internal.journal.JournalLine;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.FutureTask;

/**
 * The lines of one journal segment for {@link LedgerVerifier}, each complete line's record
 * decoded ahead on another thread while the verifier checks and folds the ones before it.
 *
 * <p>Decoding a line (the checksum, and parsing every event to prove it is JSON) is most of
 * a verify's work, and one line's decoding needs nothing from the lines before it: only the
 * checks that follow (continuity, folding, torn tail or damage) are sequential. So the lines
 * are read on the verifier's thread as before, up to {@link #AHEAD_LINES} complete lines or
 * {@link #AHEAD_BYTES} bytes ahead of the one the verifier is at, and each one's decoding is
 * handed to the common fork-join pool. The verifier takes the lines in order; a line whose
 * decoding no other thread has started yet is decoded on the verifier's thread, so a busy
 * or single-processor pool costs nothing but the hand-off. A decoding's failure (a bad
 * checksum, an invalid or future record) is thrown to the verifier exactly as decoding on
 * its own thread would throw it.
 *
 * <p>Reading ahead stops at the first line that is not complete (padding, a torn or cut line,
 * an oversized one, the end): that line is handed over with nothing read after it, so
 * {@link #position()} and {@link #skipZeros()} then mean what they mean on the
 * {@link LineReader} itself, and the verifier's handling of damage and torn tails is
 * unchanged.
 *
 * <p>Not thread-safe: one per segment scan, on the verifier's thread.
 */
final class DecodeAhead implements AutoCloseable {
  /** Complete lines read ahead at most. */
  static final int AHEAD_LINES = 16;
  /** Bytes of lines read ahead at most (one line always, however long). */
  static final long AHEAD_BYTES = 4L << 20;

  /** A line, and for a complete one its record's decoding. */
  static final class Item {
    final LineReader.Line line;
    private final FutureTask<CommitRecord> decoding;

    private Item(LineReader.Line line, FutureTask<CommitRecord> decoding) {
      this.line = line;
      this.decoding = decoding;
    }

    /**
     * The line's record, decoded here if no other thread has started it.
     *
     * @throws JournalLine.DefectException as {@link JournalLine#decodeWithoutPayloads} does
     * @throws CommitRecord.FutureFormatException as {@link JournalLine#decodeWithoutPayloads}
     */
    CommitRecord record() {
      decoding.run(); // does nothing if it ran or runs elsewhere
      try {
        return decoding.get();
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof RuntimeException runtime) {
          throw runtime;
        }
        if (cause instanceof Error error) {
          throw error;
        }
        throw new IllegalStateException(cause);
      } catch (InterruptedException e) {
        // Only the verifier's thread waits, for a decoding another thread runs: finish it
        // here instead, keeping the interrupt for the caller.
        Thread.currentThread().interrupt();
        return JournalLine.decodeWithoutPayloads(line.bytes(), line.length());
      } catch (CancellationException e) {
        throw new IllegalStateException("decoding of the line at offset " + line.offset()
            + " was cancelled", e);
      }
    }
  }

  private final LineReader reader;
  private final Executor executor;
  private final ArrayDeque<Item> ahead = new ArrayDeque<>();
  private long aheadBytes;
  /** Whether a line that is not complete waits in {@link #ahead}: nothing is read past it. */
  private boolean blocked;
  /** The file offset after the last line handed over (or where the reader started). */
  private long position;

  DecodeAhead(LineReader reader) {
    this(reader, ForkJoinPool.getCommonPoolParallelism() > 1 || Runtime.getRuntime()
        .availableProcessors() > 1 ? ForkJoinPool.commonPool() : Runnable::run);
  }

  DecodeAhead(LineReader reader, Executor executor) {
    this.reader = reader;
    this.executor = executor;
    this.position = reader.position();
  }

  /**
   * The next line, or null at the end as {@link LineReader#next} says (a later call reads
   * again, as the reader does, for a segment that grows).
   *
   * @throws IOException if reading fails
   */
  Item next() throws IOException {
    if (ahead.isEmpty()) {
      blocked = false;
      fill(true);
    }
    Item item = ahead.poll();
    if (item == null || item.decoding == null) {
      // The end, or a line that is not complete: nothing was read after it.
      blocked = false;
      position = reader.position();
      return item;
    }
    aheadBytes -= item.line.length();
    position = item.line.offset() + item.line.length() + 1;
    if (!blocked) {
      fill(false); // the lines after it are read, and decoded elsewhere, while it is checked
    }
    return item;
  }

  /**
   * Reads lines until enough are ahead, the end, or a line that is not complete. With
   * {@code first}, the first line read is handed over at once and decoded by the verifier.
   */
  private void fill(boolean first) throws IOException {
    while (ahead.size() < AHEAD_LINES && (ahead.isEmpty() || aheadBytes < AHEAD_BYTES)) {
      LineReader.Line line = reader.next();
      if (line == null) {
        return;
      }
      if (line.kind() != LineReader.Kind.COMPLETE) {
        ahead.add(new Item(line, null));
        blocked = true;
        return;
      }
      FutureTask<CommitRecord> decoding = new FutureTask<>(
          () -> JournalLine.decodeWithoutPayloads(line.bytes(), line.length()));
      boolean handedOverNow = first && ahead.isEmpty();
      ahead.add(new Item(line, decoding));
      aheadBytes += line.length();
      if (!handedOverNow) {
        executor.execute(decoding);
      }
    }
  }

  /** The file offset after the last line handed over: where a fresh reader would go on. */
  long position() {
    return position;
  }

  /**
   * {@link LineReader#skipZeros} after a padding line (nothing is ever read ahead of one).
   *
   * @throws IOException if reading fails
   */
  boolean skipZeros() throws IOException {
    if (!ahead.isEmpty()) {
      throw new IllegalStateException("skipZeros with lines read ahead");
    }
    boolean more = reader.skipZeros();
    position = reader.position();
    return more;
  }

  /** Drops what was read ahead (a decoding not yet started never runs) and closes the file. */
  @Override
  public void close() throws IOException {
    for (Item item : ahead) {
      if (item.decoding != null) {
        item.decoding.cancel(false);
      }
    }
    ahead.clear();
    reader.close();
  }
}
