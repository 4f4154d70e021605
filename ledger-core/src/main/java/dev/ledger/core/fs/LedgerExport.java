package dev.ledger.core.fs;

import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.HistoryTruncatedException;
import dev.ledger.core.LedgerNotFoundException;
import dev.ledger.core.internal.journal.LedgerExportFormat;
import dev.ledger.core.spi.StoredState;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/** Writes one ledger of a file store as an export ({@link LedgerExportFormat}). */
final class LedgerExport {
  private LedgerExport() {}

  /**
   * Writes the ledger up to the revision committed when the call starts: a reader's work, no
   * lock; commits made meanwhile are not included. A ledger a retention truncated is refused
   * with {@link HistoryTruncatedException}: an export holds every revision from 1.
   *
   * @return the revision exported
   */
  static long export(String root, Path dir, StoreLimits limits, Instant now, OutputStream out)
      throws IOException {
    if (!StoreVerifier.holdsLedger(dir)) {
      throw new LedgerNotFoundException(root);
    }
    JournalFiles journal = new JournalFiles(dir.resolve("journal"), root, limits);
    LedgerReader reader = new LedgerReader(root, journal, dir.resolve("state.json"), limits);
    Optional<StoredState> current = reader.read();
    if (current.isEmpty()) {
      throw new LedgerNotFoundException(root);
    }
    long revisions = current.get().revision();
    RetentionMarker marker = reader.marker();
    if (marker != null) {
      // An export is the whole history from revision 1 (its import rebuilds the ledger
      // from it); a ledger whose early records were removed has no such history to give.
      throw new HistoryTruncatedException(root, 0, marker.firstSequence(), "an export needs "
          + "every revision from 1, but revisions before " + marker.firstRevision()
          + " were removed; export is refused");
    }
    try (JournalScanner scan = new JournalScanner(journal, 1, 0, 1, 1).readAhead()) {
      long written = LedgerExportFormat.write(root, revisions, now, scan, out);
      if (written < revisions) {
        throw new CorruptLedgerException(journal.segment(scan.segment()), scan.end(),
            "the journal ends at revision " + written + " but revision " + revisions
                + " was committed when the export started");
      }
    }
    return revisions;
  }
}
