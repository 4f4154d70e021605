package dev.ledger.core.fs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.RetentionPolicy;
import dev.ledger.core.RetentionResult;
import dev.ledger.core.internal.io.SafeFiles;
import dev.ledger.core.internal.journal.CommitRecord;
import dev.ledger.core.internal.journal.PositionedRecord;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.List;

/**
 * Applies a {@link RetentionPolicy} to one ledger's journal, under its writer lock (the
 * caller, {@link FileLedger}, holds it and hands over its current tail).
 *
 * <p><b>Where the cut goes.</b> The policy names the first revision it keeps (the smaller of
 * what each of its rules keeps; never after the latest revision). The journal keeps the
 * segment holding that revision and every later one: only segments <em>wholly</em> before it
 * go, so the new first revision is the name of that segment.
 *
 * <p><b>Order of writes (the crash story).</b>
 * <ol>
 *   <li>If {@code state.json} points into a segment that goes, a checkpoint is written at the
 *       journal's end first (temp, force, rename, directory force), so that readers and a
 *       restarted writer never need a removed segment.</li>
 *   <li>The records being removed are folded, from the previous marker's base state (or from
 *       revision 1), into the state as of the last removed revision.</li>
 *   <li>{@code retention.json} ({@link RetentionMarker}) is written with the new first
 *       revision, its first sequence and that base state: the commit point. From here on the
 *       removed history is gone for every reader, whether or not its files still exist.</li>
 *   <li>The segments before the new first revision are deleted (or moved to the archive
 *       directory) in ascending order, then the journal directory is forced.</li>
 * </ol>
 * A crash before step 3 leaves the history whole (a checkpoint written early is harmless); a
 * crash after it leaves only segments that nothing refers to, which every reader and
 * {@code verify} ignore and the next retention removes. Deleting in ascending order lets a
 * reader that was scanning a removed segment notice (see {@link JournalScanner}).
 */
final class LedgerRetention {
  /** Writes a checkpoint at the writer's tail (under the lock the caller holds). */
  interface Checkpointer {
    void checkpoint() throws IOException;
  }

  private LedgerRetention() {}

  static RetentionResult apply(String root, Path dir, JournalFiles journal, LedgerReader reader,
      Tail t, RetentionPolicy policy, Instant now, Path archive, boolean sync,
      Checkpointer checkpointer) throws IOException {
    RetentionMarker marker = reader.marker();
    long currentFirst = marker == null ? 1 : marker.firstRevision();
    long currentFirstSequence = marker == null ? 1 : marker.firstSequence();
    List<Long> bases = journal.bases();
    long cut = cut(journal, t, policy, now, currentFirst, currentFirstSequence);
    long newFirst = currentFirst;
    for (long base : bases) {
      if (base <= cut && base > newFirst) {
        newFirst = base;
      }
    }
    long firstSequence = currentFirstSequence;
    boolean checkpointWritten = false;
    if (newFirst > currentFirst) {
      Checkpoint checkpoint = reader.readCheckpoint();
      if (checkpoint == null || checkpoint.segment() < newFirst) {
        checkpointer.checkpoint();
        checkpointWritten = true;
      }
      RetentionMarker next = fold(root, journal, marker, currentFirst, currentFirstSequence,
          newFirst);
      SafeFiles.replace(dir.resolve(RetentionMarker.FILE), next.encode(), sync);
      firstSequence = next.firstSequence();
    }
    int segments = 0;
    long bytes = 0;
    Path archiveJournal = archive == null ? null
        : archive.resolve(dir.getFileName().toString()).resolve("journal");
    for (long base : bases) {
      if (base >= newFirst) {
        break;
      }
      Path segment = journal.segment(base);
      long size;
      try {
        size = Files.size(segment);
        if (archiveJournal == null) {
          Files.delete(segment);
        } else {
          moveToArchive(segment, archiveJournal, sync);
        }
      } catch (NoSuchFileException e) {
        continue; // removed by a racing retention of another store (it held the lock first)
      }
      segments++;
      bytes += size;
    }
    if (segments > 0 && sync) {
      SafeFiles.forceDirectory(journal.dir());
    }
    return new RetentionResult(root, newFirst - currentFirst, segments, bytes, newFirst,
        firstSequence, checkpointWritten);
  }

  /**
   * The first revision the policy keeps: the smaller of the revision rule's and the time
   * rule's, at most the latest revision. The time rule reads commit times from the current
   * first record until one is recent enough (or the revision rule's cut is reached).
   */
  private static long cut(JournalFiles journal, Tail t, RetentionPolicy policy, Instant now,
      long currentFirst, long currentFirstSequence) {
    long byCount = policy.firstKeptByCount(t.revision);
    long cut = byCount;
    if (policy.keepHistory().isPresent()) {
      long byTime = t.revision + 1;
      try (JournalScanner scan = new JournalScanner(journal, currentFirst, 0, currentFirst,
          currentFirstSequence)) {
        PositionedRecord r;
        while ((r = scan.next()) != null && r.record().revision() < byCount) {
          if (policy.keepsByTime(r.record().committedAt(), now)) {
            byTime = r.record().revision();
            break;
          }
        }
      }
      cut = Math.min(byCount, byTime);
    }
    return Math.min(cut, t.revision);
  }

  /** Folds the records from the current first revision up to {@code newFirst - 1}. */
  private static RetentionMarker fold(String root, JournalFiles journal, RetentionMarker marker,
      long currentFirst, long currentFirstSequence, long newFirst) {
    JsonNode state = marker == null ? null : marker.baseState();
    int stateVersion = marker == null ? 0 : marker.baseStateVersion();
    Instant updatedAt = marker == null ? null : marker.baseUpdatedAt();
    long nextSequence = currentFirstSequence;
    long revision = currentFirst - 1;
    try (JournalScanner scan = new JournalScanner(journal, currentFirst, 0, currentFirst,
        currentFirstSequence)) {
      PositionedRecord positioned;
      while (revision < newFirst - 1 && (positioned = scan.next()) != null) {
        CommitRecord r = positioned.record();
        if (r.state() == null && state == null) {
          throw new CorruptLedgerException(journal.segment(positioned.segment()),
              positioned.offset(), "revision " + r.revision() + " is a patch but no state "
                  + "precedes it");
        }
        state = r.applyTo(state);
        stateVersion = r.stateVersion();
        updatedAt = r.committedAt();
        nextSequence = r.nextSequence();
        revision = r.revision();
      }
    }
    if (revision != newFirst - 1) {
      throw new CorruptLedgerException(journal.segment(newFirst), 0, "retention expected the "
          + "journal to reach revision " + (newFirst - 1) + " before this segment, but it ends "
          + "at revision " + revision);
    }
    return new RetentionMarker(root, newFirst, nextSequence, updatedAt, state, stateVersion);
  }

  /**
   * Moves a segment into the archive's journal directory, replacing a copy an interrupted
   * run left: a rename where the archive is on the same file system, else a copy that is
   * forced before the original is deleted.
   */
  private static void moveToArchive(Path segment, Path archiveJournal, boolean sync)
      throws IOException {
    SafeFiles.createDirectories(archiveJournal, sync);
    Path target = archiveJournal.resolve(segment.getFileName().toString());
    try {
      Files.move(segment, target, StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Path temp = SafeFiles.tempSibling(target);
      Files.copy(segment, temp, StandardCopyOption.REPLACE_EXISTING);
      if (sync) {
        try (var channel = java.nio.channels.FileChannel.open(temp,
            java.nio.file.StandardOpenOption.WRITE)) {
          channel.force(true);
        }
      }
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
      Files.delete(segment);
    }
    if (sync) {
      SafeFiles.forceDirectory(archiveJournal);
    }
  }
}
