package dev.ledger.core.fs;

import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.UnsupportedFormatException;
import dev.ledger.core.internal.journal.CommitRecord;
import dev.ledger.core.internal.journal.EventRecordReader;
import dev.ledger.core.internal.journal.JournalLine;
import dev.ledger.core.internal.journal.PatchRecordReader;
import dev.ledger.core.internal.journal.PositionedRecord;
import dev.ledger.core.internal.journal.RecordSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Reads committed records forward from a position, across segments, checking every
 * invariant of the journal: checksum, root, revision continuity (each record's revision is
 * the previous one's plus one, and a segment's first record has the segment's revision), and
 * sequence continuity.
 *
 * <p><b>End of the data.</b> The end of a segment's file, or zero bytes from a line start to
 * the end of the file (the last segment's preallocated space, see {@link JournalFiles}).
 *
 * <p><b>Tail versus damage.</b> The first line that is incomplete, runs into zero bytes or
 * fails its checksum ends the scan, and so do zero bytes at a line start that have data after
 * them. If nothing valid follows (no valid line later in the segment and no later segment),
 * it is the tail of an append that was in progress or torn by a crash: readers stop before
 * it, and the writer cuts it ({@link #tornAt}). A valid record that follows counts only if it
 * proves the bad line was forced ({@link JournalLine#provesDamageBefore}): records of a group
 * commit written before the bad line's record was forced may survive a power cut that tore
 * it, and the bad line and everything after it are then the torn tail. If anything valid follows, the line is
 * read again: a reader holds no lock, so it may have read an append in progress that the
 * writer has finished since (and committed more after); if the line is whole now, the scan
 * goes on from it. Otherwise the journal is damaged before its tail, and the scan throws
 * {@link CorruptLedgerException} naming the file and offset. It never skips.
 *
 * <p><b>Removed segments.</b> A segment that cannot be opened because it does not exist, or
 * that no longer exists when the scan reaches its end and finds no next one, throws
 * {@link SegmentRemovedException}: a retention removed it while it was read (or it was
 * deleted by hand). Readers start over from the checkpoint and the retention marker.
 */
final class JournalScanner implements RecordSource {
  private final JournalFiles files;
  private long segment;
  private Path path;
  private DecodeAhead reader;
  /** How far lines are read and decoded ahead ({@link #readAhead}); nothing by default. */
  private DecodeAhead.Ahead ahead = DecodeAhead.NONE;
  private long expectedRevision;
  private long expectedSequence;
  private long end;
  private long tornAt = -1;
  private boolean finished;
  private boolean eventsOnly;
  private boolean patchesOnly;

  /**
   * Starts at {@code offset} of segment {@code segment}, where a record with
   * {@code revision} and {@code firstSequence} is expected (or the end of the journal).
   */
  JournalScanner(JournalFiles files, long segment, long offset, long revision,
      long firstSequence) {
    this.files = files;
    this.expectedRevision = revision;
    this.expectedSequence = firstSequence;
    open(segment, offset);
  }

  /**
   * As {@link #JournalScanner(JournalFiles, long, long, long, long)}, reading segment
   * {@code segment} through {@code channel}, the caller's open channel to it, whose size the
   * caller just read; {@link #close} leaves that channel open. Later segments are opened as
   * usual. For the writer's recovery, which keeps the channel to write the next record.
   */
  JournalScanner(JournalFiles files, long segment, long offset, long revision,
      long firstSequence, java.nio.channels.FileChannel channel, long size) {
    this.files = files;
    this.expectedRevision = revision;
    this.expectedSequence = firstSequence;
    this.segment = segment;
    this.path = files.segment(segment);
    this.end = offset;
    this.reader = lines(new LineReader(channel, offset, size, files.maxLine()));
  }

  private void open(long base, long offset) {
    this.segment = base;
    this.path = files.segment(base);
    this.end = offset;
    try {
      this.reader = lines(offset);
    } catch (NoSuchFileException e) {
      throw new SegmentRemovedException(path, e);
    } catch (IOException e) {
      throw new LedgerIOException("opening journal segment", path, e);
    }
  }

  /**
   * Makes this scan decode records for their events only ({@link EventRecordReader}): the
   * records it returns hold no state or patch. For readers of events (replay, pages), which
   * never fold states; the checks of the journal's invariants are the same.
   *
   * @return this scan
   */
  JournalScanner eventsOnly() {
    eventsOnly = true;
    return this;
  }

  /**
   * Makes this scan decode records for their state or patch only ({@link PatchRecordReader}):
   * the records it returns hold placeholder events (right sequences, no contents). For a
   * patch log's replay, which folds states and hands out no events; the checks of the
   * journal's invariants are the same.
   *
   * @return this scan
   */
  JournalScanner patchesOnly() {
    patchesOnly = true;
    return this;
  }

  /**
   * Makes this scan read and decode lines ahead of the record it returns, decoding on
   * another thread where one is free ({@link DecodeAhead#REPLAY}): for a reader that goes
   * through the journal (a replay, an export), never for one that reads a few records and
   * stops, which would read past what it needs. Call it before the first {@link #next}.
   *
   * @return this scan
   */
  JournalScanner readAhead() {
    ahead = DecodeAhead.REPLAY;
    reader.aheadBy(ahead);
    return this;
  }

  /** The lines of the current segment from {@code offset}, decoded as this scan decodes. */
  private DecodeAhead lines(long offset) throws IOException {
    return lines(new LineReader(path, offset, files.maxLine()));
  }

  private DecodeAhead lines(LineReader lines) {
    return new DecodeAhead(lines, this::decode, ahead);
  }

  /**
   * A line's record, as this scan decodes (the flags are set before the first line is read,
   * and a decoding on another thread is handed over after that).
   */
  private CommitRecord decode(byte[] line, int length) {
    return eventsOnly ? EventRecordReader.decode(line, length)
        : patchesOnly ? PatchRecordReader.decode(line, length)
        : JournalLine.decode(line, length);
  }

  /** Segment the scan is in (the last segment once it returned null). */
  long segment() {
    return segment;
  }

  /** Offset after the last valid record read in {@link #segment()}. */
  long end() {
    return end;
  }

  /** Revision the next record would have. */
  long nextRevision() {
    return expectedRevision;
  }

  /** Sequence the next event would have. */
  long nextSequence() {
    return expectedSequence;
  }

  /** Offset of a torn tail in {@link #segment()} found at the end, or -1. */
  long tornAt() {
    return tornAt;
  }

  @Override
  public PositionedRecord next() {
    if (finished) {
      return null;
    }
    try {
      while (true) {
        DecodeAhead.Item item = reader.next();
        LineReader.Line line = item == null ? null : item.line;
        if (line != null && line.kind() == LineReader.Kind.PADDING) {
          long at = line.offset();
          if (reader.skipZeros()) {
            if (tail(at, "zero bytes at offset " + at + " are followed by data at offset "
                + reader.position())) {
              continue;
            }
            return null;
          }
          line = null; // zero padding to the end of the file: the end of the data
        }
        if (line == null) {
          Path following = files.segment(expectedRevision);
          if (expectedRevision != segment && Files.exists(following)) {
            reader.close();
            open(expectedRevision, 0);
            continue;
          }
          if (!Files.exists(path)) {
            // Retention deletes segments in ascending order, so a next segment gone means
            // this one went first: the read was overtaken, not at the journal's end.
            throw new SegmentRemovedException(path, new NoSuchFileException(path.toString()));
          }
          finished = true;
          return null;
        }
        if (line.kind() == LineReader.Kind.OVERSIZED) {
          if (files.refreshLimits()) {
            // A writer raised the store's limits since this store read them: read it again.
            reader.close();
            reader = lines(line.offset());
            continue;
          }
          throw new CorruptLedgerException(path, line.offset(), "line longer than "
              + files.maxLine() + " bytes, the longest the store's limits allow");
        }
        if (line.kind() == LineReader.Kind.INCOMPLETE
            || line.kind() == LineReader.Kind.ZERO_CUT) {
          String what = line.kind() == LineReader.Kind.INCOMPLETE ? "incomplete line of "
              + line.length() + " bytes" : line.length() + " bytes cut by a zero byte";
          if (tail(line.offset(), what)) {
            continue;
          }
          return null;
        }
        CommitRecord record;
        try {
          record = item.record();
        } catch (JournalLine.InvalidRecordException e) {
          throw new CorruptLedgerException(path, line.offset(), e.getMessage());
        } catch (JournalLine.DefectException e) {
          if (tail(line.offset(), e.getMessage())) {
            continue;
          }
          return null;
        } catch (CommitRecord.FutureFormatException e) {
          throw new UnsupportedFormatException(path, "journal record format", e.format(),
              CommitRecord.GROUPED_FORMAT);
        }
        check(record, line.offset());
        end = line.offset() + line.length() + 1;
        expectedRevision = record.revision() + 1;
        expectedSequence = record.nextSequence();
        return new PositionedRecord(record, segment, line.offset());
      }
    } catch (IOException e) {
      throw new LedgerIOException("reading journal segment", path, e);
    }
  }

  private void check(CommitRecord record, long offset) {
    if (!record.root().equals(files.root())) {
      throw new CorruptLedgerException(path, offset, "record of ledger '" + record.root()
          + "', expected '" + files.root() + "'");
    }
    if (record.revision() != expectedRevision) {
      throw new CorruptLedgerException(path, offset, "expected revision " + expectedRevision
          + ", found revision " + record.revision());
    }
    if (offset == 0 && record.revision() != segment) {
      throw new CorruptLedgerException(path, offset, "segment named for revision " + segment
          + " starts with revision " + record.revision());
    }
    if (record.firstSequence() != expectedSequence) {
      throw new CorruptLedgerException(path, offset, "expected first sequence "
          + expectedSequence + ", found " + record.firstSequence());
    }
  }

  /**
   * Decides what the bad line at {@code offset} is: the tail, if nothing valid follows it
   * (stop before it; the writer cuts it); an append that was still in progress when it was
   * read and is whole now, if something follows it but it reads whole at a second look (a
   * reader holds no lock, and a writer may finish that append and commit more before this
   * check: go on from it); damage before the tail otherwise.
   *
   * @return true if the scan goes on from {@code offset}
   * @throws CorruptLedgerException if the line is damage before the tail
   */
  private boolean tail(long offset, String reason) throws IOException {
    finished = true;
    String damage = null;
    DecodeAhead.Item item;
    while (damage == null && (item = reader.next()) != null) {
      LineReader.Line later = item.line;
      if (later.kind() == LineReader.Kind.PADDING) {
        if (!reader.skipZeros()) {
          break;
        }
        continue;
      }
      if (later.kind() == LineReader.Kind.ZERO_CUT) {
        continue;
      }
      if (later.kind() == LineReader.Kind.OVERSIZED) {
        if (files.refreshLimits()) {
          // Limits raised since they were read: look at the bad line again with the new bound.
          reader.close();
          reader = lines(offset);
          finished = false;
          return true;
        }
        // No writer writes a line beyond the recorded limits, and no crash makes one.
        damage = reason + "; a line longer than " + files.maxLine() + " bytes follows at offset "
            + later.offset();
        break;
      }
      if (later.kind() != LineReader.Kind.COMPLETE) {
        break;
      }
      if (JournalLine.provesDamageBefore(later.bytes(), later.length(), expectedRevision)) {
        damage = reason + "; a valid record follows at offset " + later.offset();
      }
    }
    if (damage == null) {
      for (long base : files.bases()) {
        if (base > segment) {
          damage = reason + "; segment " + files.segment(base).getFileName() + " follows";
          break;
        }
      }
    }
    if (damage == null) {
      tornAt = offset;
      return false;
    }
    if (wholeNow(offset)) {
      reader.close();
      reader = lines(offset);
      finished = false;
      return true;
    }
    throw new CorruptLedgerException(path, offset, damage);
  }

  /** Whether the line at {@code offset} reads now as a complete, valid record line. */
  private boolean wholeNow(long offset) throws IOException {
    try (LineReader again = new LineReader(path, offset, files.maxLine())) {
      LineReader.Line line = again.next();
      return line != null && line.kind() == LineReader.Kind.COMPLETE && decodes(line);
    }
  }

  /** Whether a line was written whole: its checksum holds, whatever its content. */
  private static boolean decodes(LineReader.Line line) {
    try {
      JournalLine.decode(line.bytes(), line.length());
      return true;
    } catch (JournalLine.InvalidRecordException | CommitRecord.FutureFormatException e) {
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  @Override
  public void close() {
    try {
      reader.close();
    } catch (IOException e) {
      throw new LedgerIOException("closing journal segment", path, e);
    }
  }

  /**
   * The segment being read was removed (by a retention, or by hand) while the scan ran, or
   * before it opened it. An I/O error to callers that do not know it; readers retry.
   */
  static final class SegmentRemovedException extends LedgerIOException {
    private static final long serialVersionUID = 1L;

    SegmentRemovedException(Path path, NoSuchFileException cause) {
      super("opening journal segment", path, cause);
    }
  }
}
