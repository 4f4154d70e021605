package dev.ledger.core.fs;

import dev.ledger.core.LedgerOptions;
import dev.ledger.core.internal.journal.JournalLine;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * What bounds the reads of one store: the larger of the limits its marker records
 * ({@link StoreMarker}) and the store's own options. The bounds keep a damaged file (a
 * journal without newlines, a huge {@code state.json}) from exhausting memory; they must
 * never refuse what a writer was allowed to write.
 *
 * <p>A writer in another process may raise the marker after this store read it. So when a
 * read meets a line or checkpoint beyond the bound, it calls {@link #refresh} before calling
 * it damage: the marker is read again, and the read is retried if the bound grew. Reads
 * within the bound never touch the marker. Thread-safe.
 */
final class StoreLimits {
  private final Path marker;
  private final StoreMarker.Limits own;
  private volatile StoreMarker.Limits bound;

  StoreLimits(Path marker, LedgerOptions options, StoreMarker.Limits recorded) {
    this.marker = marker;
    this.own = StoreMarker.Limits.of(options);
    this.bound = recorded.max(own);
  }

  /** The limits reads are bounded by now. */
  StoreMarker.Limits bound() {
    return bound;
  }

  /** Longest journal line read (see {@link JournalLine#maxLineBytes}). */
  int maxLine() {
    StoreMarker.Limits b = bound;
    return JournalLine.maxLineBytes(LedgerOptions.defaults()
        .withLimits(b.maxStateBytes(), b.maxEventPayloadBytes()));
  }

  /** Largest {@code state.json} read: twice the state (escapes, indentation) and a margin. */
  long maxCheckpointBytes() {
    return 2L * bound.maxStateBytes() + 64 * 1024;
  }

  /**
   * Reads the marker again.
   *
   * @return true if the bound grew (retry the read), false if it is what it was
   * @throws dev.ledger.core.LedgerIOException if the marker cannot be read
   */
  boolean refresh() {
    StoreMarker.Limits before = bound;
    StoreMarker.Limits recorded;
    try {
      recorded = StoreMarker.read(marker);
    } catch (NoSuchFileException e) {
      return false; // a store directory without its marker: the bound stays
    } catch (IOException e) {
      throw new dev.ledger.core.LedgerIOException("reading store marker", marker, e);
    }
    StoreMarker.Limits next = before.max(recorded);
    if (next.equals(before)) {
      return false;
    }
    bound = next;
    return true;
  }
}
