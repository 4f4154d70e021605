package dev.ledger.core.fs;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.google.common.base.Preconditions;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.internal.journal.CommitRecord;
import dev.ledger.core.internal.journal.PositionedRecord;
import dev.ledger.core.internal.json.MergePatch;
import dev.ledger.core.spi.LoggedCommit;
import dev.ledger.core.spi.PatchRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * The journal records of a {@link dev.ledger.core.spi.PatchLog}: built from the caller's
 * patches without the state, and read back as {@link LoggedCommit}s. See {@link FileLedger}
 * for how the writer uses them.
 */
final class PatchRecords {
  private PatchRecords() {}

  /**
   * Checks a batch before any lock is taken: not empty, no null request, consecutive expected
   * revisions, no command twice.
   *
   * @throws IllegalArgumentException naming the first request that breaks a rule
   * @throws NullPointerException if the batch or a request is null
   */
  static void checkBatch(List<PatchRequest> batch) {
    Preconditions.checkNotNull(batch, "batch");
    Preconditions.checkArgument(!batch.isEmpty(), "a batch needs at least one request");
    Set<String> commands = new HashSet<>();
    for (int i = 0; i < batch.size(); i++) {
      PatchRequest request = Preconditions.checkNotNull(batch.get(i), "request %s", i);
      if (i > 0) {
        long expected = batch.get(i - 1).expectedRevision() + 1;
        Preconditions.checkArgument(request.expectedRevision() == expected,
            "request %s expects revision %s, but the one before it produces %s", i,
            request.expectedRevision(), expected);
      }
      String id = request.publicCommandId();
      Preconditions.checkArgument(id == null || commands.add(id),
          "request %s repeats command %s of an earlier request of the batch", i, id);
    }
  }

  /**
   * The records that commit {@code batch} after revision {@code previousRevision}, all
   * stamped {@code now}. Each carries its request's patch; the first record of a ledger
   * (revision 1) carries instead the patch applied to an empty object as its whole state,
   * since the journal allows a patch only after a state. Costs the patches, not the state.
   */
  static List<CommitRecord> build(String root, long previousRevision, long nextSequence,
      List<PatchRequest> batch, Instant now) {
    List<CommitRecord> records = new ArrayList<>(batch.size());
    long revision = previousRevision;
    long sequence = nextSequence;
    for (PatchRequest request : batch) {
      revision++;
      List<Event> events = new ArrayList<>(request.events().size());
      long first = sequence;
      for (EventDraft draft : request.events()) {
        events.add(new Event(CommitRecord.eventId(root, sequence), root, sequence, revision,
            draft.type(), now, draft.payload(), request.publicCommandId(),
            draft.operationId()));
        sequence++;
      }
      boolean whole = revision == 1;
      records.add(new CommitRecord(CommitRecord.FORMAT, root, revision, now, first, events,
          request.publicCommandId(), request.commandDigest(), request.stateVersion(),
          whole ? MergePatch.apply(JsonNodeFactory.instance.objectNode(), request.patch())
              : null,
          whole ? null : request.patch()));
    }
    return records;
  }

  /** {@code record} as a patch log hands it out; without its events unless {@code events}. */
  static LoggedCommit logged(CommitRecord record, boolean events) {
    return new LoggedCommit(record.revision(), record.committedAt(), record.stateVersion(),
        record.state(), record.patch(), events ? record.events() : List.of(),
        record.commandId());
  }

  /**
   * A journal position just after the record of {@code revision} (or, for revision 0, the
   * start of the journal), with the sequence the next record's first event has: where this
   * process saw the journal end, as a writer or at the end of a read.
   */
  record Mark(long revision, long nextSequence, long segment, long end) {}

  /**
   * The commits after {@code revision}, read lazily; {@code checkpoint} gives the
   * checkpoint's header, or null, and is asked only when the scan does not start at the mark.
   * When {@code mark} is the position just after {@code revision} and {@code end} finds
   * nothing after it, the answer is empty without a scan, and without the check for links
   * (as the read cache of {@link LedgerReader} answers: the check is made where a read starts
   * from the files). The scan starts at {@code mark} when it is the position just after
   * {@code revision} and its segment still reaches it (records are append-only and only bytes
   * after committed ones are ever cut, so what follows it is what was committed since, as for
   * the read cache of {@link LedgerReader}); then at the checkpoint's
   * position when {@code revision} is at or after the checkpoint; otherwise at the start of
   * the segment holding {@code revision + 1} (a segment is named by its first revision, and
   * its first record gives the sequence), so a reader that is far behind skips whole
   * segments. Every record from there on is checked as every reader checks it. When the scan
   * reaches the end of the journal, {@code reachedEnd} is told where it stopped. Without
   * {@code events}, the records are decoded for their state or patch only
   * ({@link JournalScanner#patchesOnly}) and the commits hold no events.
   */
  static Stream<LoggedCommit> commitsAfter(LedgerReader reader, JournalFiles journal,
      JournalEndProbe end, Supplier<Checkpoint> checkpoint, long revision, Mark mark,
      Consumer<Mark> reachedEnd, boolean events) {
    if (mark != null && mark.revision() == revision && endsAt(end, mark)) {
      return Stream.empty();
    }
    reader.refuseLinks();
    JournalScanner scan = fromMark(journal, mark, revision);
    if (scan == null) {
      scan = start(reader, journal, checkpoint.get(), revision);
    }
    if (scan == null) {
      return Stream.empty();
    }
    JournalScanner s = events ? scan : scan.patchesOnly();
    Spliterator<LoggedCommit> commits = new Spliterators.AbstractSpliterator<>(Long.MAX_VALUE,
        Spliterator.ORDERED | Spliterator.NONNULL) {
      @Override
      public boolean tryAdvance(Consumer<? super LoggedCommit> action) {
        PositionedRecord next;
        while ((next = s.next()) != null) {
          if (next.record().revision() > revision) {
            action.accept(logged(next.record(), events));
            return true;
          }
        }
        long last = s.nextRevision() - 1;
        if (last >= 1) {
          reachedEnd.accept(new Mark(last, s.nextSequence(), s.segment(), s.end()));
        }
        return false;
      }
    };
    return StreamSupport.stream(commits, false).onClose(s::close);
  }

  /** Whether nothing was committed after {@code mark} ({@link JournalEndProbe}). */
  private static boolean endsAt(JournalEndProbe end, Mark mark) {
    try {
      return end.nothingAfter(mark);
    } catch (IOException e) {
      // Missing or unreadable: the scan from the checkpoint reports what is wrong.
      return false;
    }
  }

  /** A scanner at {@code mark}, or null if it is not just after {@code revision} any more. */
  private static JournalScanner fromMark(JournalFiles journal, Mark mark, long revision) {
    if (mark == null || mark.revision() != revision) {
      return null;
    }
    try {
      if (Files.size(journal.segment(mark.segment())) < mark.end()) {
        return null;
      }
    } catch (IOException e) {
      // Missing or unreadable: start from the checkpoint, which reports what is wrong.
      return null;
    }
    return new JournalScanner(journal, mark.segment(), mark.end(), revision + 1,
        mark.nextSequence());
  }

  /** A scanner at or before the record of {@code revision + 1}, or null without a journal. */
  private static JournalScanner start(LedgerReader reader, JournalFiles journal,
      Checkpoint checkpoint, long revision) {
    try {
      if (checkpoint != null && revision >= checkpoint.revision()) {
        Tail t = Tail.start(checkpoint);
        if (!Files.exists(journal.segment(t.segment))) {
          reader.missingSegment(t);
        }
        reader.checkPosition(t);
        return reader.scanner(t);
      }
      if (!Files.exists(journal.segment(1))) {
        if (checkpoint != null) {
          reader.missingSegment(Tail.start(checkpoint));
        }
        return null;
      }
      long base = 1;
      for (long b : journal.bases()) {
        if (b <= revision + 1 && b > base) {
          base = b;
        }
      }
      if (base > 1) {
        CommitRecord first = reader.recordAt(base, 0);
        if (first != null) {
          return new JournalScanner(journal, base, 0, base, first.firstSequence());
        }
      }
      return new JournalScanner(journal, 1, 0, 1, 1);
    } catch (IOException e) {
      throw new LedgerIOException("reading journal", journal.dir(), e);
    }
  }
}
