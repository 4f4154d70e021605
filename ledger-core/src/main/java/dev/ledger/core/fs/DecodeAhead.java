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
 * The lines of one journal segment for a sequential reader of the whole journal (verify, a
 * replay), each complete line's record decoded ahead on another thread while the reader
 * checks the ones before it.
 *
 * <p>Decoding a line (the checksum, and parsing every event) is most of the work of reading
 * a journal through, and one line's decoding needs nothing from the lines before it: only
 * the checks that follow (continuity, folding, torn tail or damage) are sequential. So the
 * lines are read on the reader's thread as before, up to a number of complete lines and
 * bytes ahead of the one the reader is at ({@link #VERIFY}, {@link #REPLAY}), and each
 * one's decoding is handed to the common fork-join pool. The reader takes the lines in
 * order; a line whose decoding no other thread has started yet is decoded on the reader's
 * thread, so a busy or single-processor pool costs nothing but the hand-off. A decoding's
 * failure (a bad checksum, an invalid or future record) is thrown to the reader exactly as
 * decoding on its own thread would throw it. With {@link #NONE} nothing is read ahead: each
 * line is read when asked for and decoded when its record is, on the reader's thread, as a
 * plain {@link LineReader} would (for short reads, which must not read past what they need).
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
  /** How far to read ahead: complete lines, and their bytes (one line always, however long). */
  record Ahead(int lines, long bytes) {}

  /** Verify: its records carry no payloads, so what is ahead costs about its bytes. */
  static final Ahead VERIFY = new Ahead(16, 4L << 20);
  /**
   * A replay: its records carry their payloads' trees, several times their bytes, and a
   * replay must run in a small heap, so less is read ahead.
   */
  static final Ahead REPLAY = new Ahead(16, 1L << 20);
  /** Nothing read ahead. */
  static final Ahead NONE = new Ahead(0, 0);

  /** What turns a line into its record. */
  @FunctionalInterface
  interface Decoder {
    /**
     * Decodes {@code length} bytes of {@code line}.
     *
     * @throws JournalLine.DefectException if the frame, the checksum or the record is bad
     * @throws CommitRecord.FutureFormatException if the record is from a newer format
     */
    CommitRecord decode(byte[] line, int length);
  }

  /** A line, and for a complete one its record's decoding. */
  static final class Item {
    final LineReader.Line line;
    private final FutureTask<CommitRecord> decoding;
    private final Decoder decoder;
    /** The lines read after this one, whose decodings the reader may run while it waits. */
    private final ArrayDeque<Item> later;

    private Item(LineReader.Line line, FutureTask<CommitRecord> decoding, Decoder decoder,
        ArrayDeque<Item> later) {
      this.line = line;
      this.decoding = decoding;
      this.decoder = decoder;
      this.later = later;
    }

    /**
     * The line's record, decoded here if no other thread has started it.
     *
     * @throws JournalLine.DefectException as the decoder throws it
     * @throws CommitRecord.FutureFormatException as the decoder throws it
     */
    CommitRecord record() {
      decoding.run(); // does nothing if it ran or runs elsewhere
      // Running elsewhere: rather than wait, decode the lines after it that no other thread
      // has started (a pool thread takes the oldest first, which is this one).
      for (Item next : later) {
        if (decoding.isDone()) {
          break;
        }
        if (next.decoding != null) {
          next.decoding.run();
        }
      }
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
        return decoder.decode(line.bytes(), line.length());
      } catch (CancellationException e) {
        throw new IllegalStateException("decoding of the line at offset " + line.offset()
            + " was cancelled", e);
      }
    }
  }

  private final LineReader reader;
  private final Decoder decoder;
  private Ahead limit;
  private final Executor executor;
  private final ArrayDeque<Item> ahead = new ArrayDeque<>();
  private long aheadBytes;
  /** Whether a line that is not complete waits in {@link #ahead}: nothing is read past it. */
  private boolean blocked;
  /** The file offset after the last line handed over (or where the reader started). */
  private long position;

  /**
   * Lines of {@code reader} decoded by {@code decoder}, {@code ahead} of the reader, on the
   * common pool where this machine has more than one processor.
   */
  DecodeAhead(LineReader reader, Decoder decoder, Ahead ahead) {
    this(reader, decoder, ahead, ahead.lines() > 0 && Processors.SEVERAL
        ? ForkJoinPool.commonPool() : Runnable::run);
  }

  /**
   * Whether this machine has more than one processor, asked once: in a container the JVM
   * answers {@code availableProcessors} by reading the control group's files (eight system
   * calls), which a writer's recovery scan, one per ledger touched, would pay each time.
   */
  private static final class Processors {
    static final boolean SEVERAL = Runtime.getRuntime().availableProcessors() > 1;
  }

  DecodeAhead(LineReader reader, Decoder decoder, Ahead ahead, Executor executor) {
    this.reader = reader;
    this.decoder = decoder;
    this.limit = ahead;
    this.executor = executor;
    this.position = reader.position();
  }

  /**
   * Reads ahead by {@code ahead} from now on.
   *
   * @param ahead how far
   */
  void aheadBy(Ahead ahead) {
    this.limit = ahead;
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
    if (!blocked && limit.lines() > 0) {
      fill(false); // the lines after it are read, and decoded elsewhere, while it is checked
    }
    return item;
  }

  /**
   * Reads lines until enough are ahead, the end, or a line that is not complete. With
   * {@code first}, the first line read is handed over at once and decoded by the verifier.
   */
  private void fill(boolean first) throws IOException {
    while (ahead.isEmpty() || (ahead.size() < limit.lines() && aheadBytes < limit.bytes())) {
      LineReader.Line line = reader.next();
      if (line == null) {
        return;
      }
      if (line.kind() != LineReader.Kind.COMPLETE) {
        ahead.add(new Item(line, null, decoder, ahead));
        blocked = true;
        return;
      }
      FutureTask<CommitRecord> decoding = new FutureTask<>(
          () -> decoder.decode(line.bytes(), line.length()));
      boolean handedOverNow = first && ahead.isEmpty();
      ahead.add(new Item(line, decoding, decoder, ahead));
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
