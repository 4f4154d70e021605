package dev.ledger.core.fs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.LedgerException;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.UnsupportedFormatException;
import dev.ledger.core.VerifyProgress;
import dev.ledger.core.VerifyReport.Finding;
import dev.ledger.core.VerifyReport.Kind;
import dev.ledger.core.internal.io.SafeFiles;
import dev.ledger.core.internal.journal.CommitRecord;
import dev.ledger.core.internal.journal.JournalLine;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Verifies one ledger's files without a lock and without writing: every journal line from the
 * first segment, or after a retention from the segment {@code retention.json} names, folded
 * from its base state (checksum, root, revision and sequence continuity, segment names;
 * segments before it are notes, command entries of removed revisions are accepted), the state
 * folded from the journal against {@code state.json} at its revision and position, and the
 * command index against the records it points at. Unlike the readers it does not stop at the
 * first damage: it reports it, picks up at the next valid record, and goes on (the state is
 * no longer folded past damage, so later checkpoint comparisons are skipped).
 *
 * <p><b>Tail versus damage</b> is the readers' rule ({@link JournalScanner}): a bad line with
 * nothing valid after it (no valid line later in the segment, no later segment) is a torn
 * tail, a note; a bad line that reads whole at a second look was an append in progress; any
 * other bad line is damage.
 *
 * <p><b>Racing writers.</b> The checkpoint is read before the journal, and the journal after
 * it only grows, so the scan always reaches the checkpoint's revision. Command entries are
 * read after the scan; one for a commit newer than the scan is checked against the record it
 * names. An entry that does not parse is read again after the checkpoint is: it is damage
 * only if a published checkpoint covers its command (see {@link #settled}). Not thread-safe:
 * one per run.
 */
final class LedgerVerifier {
  private static final long PROGRESS_BYTES = 1 << 20;

  private final String root;
  private final Path dir;
  private final Segments journal;
  private final Path stateFile;
  private final long maxCheckpointBytes;
  private final CommandIndex index;
  private final Consumer<VerifyProgress> progress;
  private final int ledger;
  private final int ledgers;

  final List<Finding> findings = new ArrayList<>();
  long segments;
  long records;
  long events;
  long bytes;

  /** The end of the valid journal: what a repair checkpoints. */
  final Tail end = new Tail();
  /** Every command in the journal, where its record is. */
  final Map<String, CommandIndex.Entry> commands = new LinkedHashMap<>();
  /** Journal lines found damaged, as "path:offset": an entry pointing at one is not blamed. */
  private final java.util.Set<String> damagedLines = new java.util.HashSet<>();
  /** Whether the journal has damage before its tail (a repair must refuse). */
  Finding firstJournalDamage;

  private long bytesTotal;
  private long bytesBefore;
  private long lastReport;
  private boolean synced = true;
  private boolean folding = true;

  LedgerVerifier(String root, Path dir, int maxLine, long maxCheckpointBytes,
      Consumer<VerifyProgress> progress, int ledger, int ledgers) {
    this.root = root;
    this.dir = dir;
    this.journal = new Segments(dir.resolve("journal"), maxLine);
    this.stateFile = dir.resolve("state.json");
    this.maxCheckpointBytes = maxCheckpointBytes;
    this.index = new CommandIndex(dir.resolve("commands"));
    this.progress = progress;
    this.ledger = ledger;
    this.ledgers = ledgers;
  }

  /** Verifies everything: checkpoint, journal, command index. */
  void verifyAll() {
    Checkpoint checkpoint = readCheckpoint();
    if (Files.exists(SafeFiles.tempSibling(stateFile))) {
      note(Kind.LEFTOVER_TEMP_FILE, SafeFiles.tempSibling(stateFile), -1,
          "temp file of an interrupted checkpoint");
    }
    scanJournal(checkpoint);
    if (checkpoint != null && end.revision < checkpoint.revision()
        && firstJournalDamage == null) {
      add(Kind.CHECKPOINT_MISMATCH, stateFile, -1, "the checkpoint's revision is beyond the "
          + "journal's end", Long.toString(checkpoint.revision()), Long.toString(end.revision));
    }
    verifyCommandIndex(checkpoint);
    report();
  }

  /** The checkpoint, or null if absent or damaged (damage is recorded). */
  private Checkpoint readCheckpoint() {
    try {
      return Checkpoint.read(stateFile, root, maxCheckpointBytes);
    } catch (CorruptLedgerException | UnsupportedFormatException e) {
      add(Kind.BAD_CHECKPOINT, stateFile, -1, e.getMessage(), null, null);
      return null;
    } catch (LedgerIOException e) {
      add(Kind.UNREADABLE, stateFile, -1, e.getMessage(), null, null);
      return null;
    }
  }

  // ---------------------------------------------------------------- journal

  /**
   * Reads the whole journal, comparing the folded state with {@code checkpoint} (may be
   * null) at its revision. Fills {@link #end}, {@link #commands} and the counts.
   */
  void scanJournal(Checkpoint checkpoint) {
    if (!startAtRetention()) {
      return;
    }
    List<Long> bases = new ArrayList<>();
    for (long base : bases()) {
      if (base < first) {
        note(Kind.RETAINED_LEFTOVER, journal.segment(base), -1, "segment before revision "
            + first + ", where retention.json starts the journal: an interrupted retention "
            + "left it; the next retention removes it");
      } else {
        bases.add(base);
        bytesTotal += size(journal.segment(base));
      }
    }
    if (bases.isEmpty()) {
      if (checkpoint != null) {
        journalDamage(Kind.MISSING_SEGMENT, journal.segment(1), -1, "the journal is missing, "
            + "but the checkpoint holds revision " + checkpoint.revision(), null, null);
      }
      return;
    }
    long segment = first;
    long lastRead = 0;
    long from = 0;
    while (true) {
      Path path = journal.segment(segment);
      if (!Files.exists(path)) {
        long next = nextBase(lastRead);
        if (next < 0) {
          return; // the end of the journal
        }
        if (next == segment) {
          continue; // a writer rolled to it between the check and the listing: read it
        }
        if (lastRead > 0 && synced && rescan(lastRead, checkpoint)) {
          // a writer appended to the last segment read, then rolled, while we read
          segment = end.revision + 1;
          continue;
        }
        journalDamage(Kind.MISSING_SEGMENT, path, -1, "segment " + path.getFileName()
            + " is missing; the next one present is " + journal.segment(next).getFileName(),
            path.getFileName().toString(), journal.segment(next).getFileName().toString());
        lostSync();
        segment = next;
        path = journal.segment(segment);
      }
      if (from == 0) {
        segments++;
      }
      boolean go = scan(segment, from, checkpoint);
      from = 0;
      lastRead = segment;
      report();
      if (!go) {
        return;
      }
      if (synced && end.revision + 1 > segment) {
        segment = end.revision + 1;
      } else {
        long next = nextBase(segment);
        if (next < 0) {
          return;
        }
        segment = next;
      }
    }
  }

  /**
   * Reads on from the end of {@code segment} after a later segment was found but not the
   * one expected: records a writer appended since the first read lead to it.
   *
   * @return true if records were added
   */
  private boolean rescan(long segment, Checkpoint checkpoint) {
    if (end.segment != segment) {
      return false;
    }
    long before = end.revision;
    scan(segment, end.end, checkpoint);
    return end.revision > before;
  }

  private boolean scan(long segment, long from, Checkpoint checkpoint) {
    Path path = journal.segment(segment);
    try {
      return scanSegment(segment, path, from, checkpoint);
    } catch (IOException e) {
      journalDamage(Kind.UNREADABLE, path, -1, "cannot read: " + e, null, null);
      lostSync();
      return true;
    }
  }

  /** The first segment present after {@code segment} (and not before the journal's start), or -1. */
  private long nextBase(long segment) {
    for (long base : bases()) {
      if (base > segment && base >= first) {
        return base;
      }
    }
    return -1;
  }

  /**
   * Scans one segment from {@code from}.
   *
   * @return false if the journal ends in it (a torn tail)
   */
  private boolean scanSegment(long segment, Path path, long from, Checkpoint checkpoint)
      throws IOException {
    DecodeAhead reader = new DecodeAhead(new LineReader(path, from, journal.maxLine()),
        JournalLine::decodeWithoutPayloads, DecodeAhead.VERIFY);
    long read = 0;
    try {
      while (true) {
        maybeReport(reader.position() - from);
        DecodeAhead.Item item = reader.next();
        if (item == null) {
          read = reader.position() - from;
          return true;
        }
        LineReader.Line line = item.line;
        long at = line.offset();
        read = at - from;
        switch (line.kind()) {
          case PADDING -> {
            if (!reader.skipZeros()) {
              return true; // preallocated zeros to the end: the end of the data
            }
            long data = reader.position();
            if (wholeNow(path, at)) {
              reader.close();
              reader = new DecodeAhead(new LineReader(path, at, journal.maxLine()),
                  JournalLine::decodeWithoutPayloads, DecodeAhead.VERIFY);
              continue;
            }
            if (!validFollows(path, data, segment, synced ? end.revision + 1 : 0)) {
              return tornTail(path, at, "zero bytes, then data that is not a record at offset "
                  + data);
            }
            journalDamage(Kind.BAD_LINE, path, at, "zero bytes at offset " + at
                + " are followed by data at offset " + data, null, null);
            lostSync();
          }
          case ZERO_CUT, INCOMPLETE -> {
            String what = line.kind() == LineReader.Kind.INCOMPLETE ? "incomplete line of "
                + line.length() + " bytes" : line.length() + " bytes cut by a zero byte";
            if (wholeNow(path, at)) {
              reader.close();
              reader = new DecodeAhead(new LineReader(path, at, journal.maxLine()),
                  JournalLine::decodeWithoutPayloads, DecodeAhead.VERIFY);
              continue;
            }
            if (!validFollows(path, reader.position(), segment, synced ? end.revision + 1 : 0)) {
              return tornTail(path, at, what);
            }
            journalDamage(Kind.BAD_LINE, path, at, what + " before the journal's tail", null,
                null);
            lostSync();
            if (line.kind() == LineReader.Kind.INCOMPLETE) {
              read = at + line.length() - from;
              return true;
            }
          }
          case OVERSIZED -> {
            journalDamage(Kind.BAD_LINE, path, at, "line longer than " + journal.maxLine()
                + " bytes; the rest of the segment is not read", null, null);
            lostSync();
            read = Math.max(0, size(path) - from);
            return true;
          }
          case COMPLETE -> {
            if (!record(segment, path, item, reader, checkpoint)) {
              return false;
            }
            read = reader.position() - from;
          }
          default -> throw new AssertionError(line.kind());
        }
      }
    } finally {
      reader.close();
      bytes += read;
      bytesBefore += read;
    }
  }

  /**
   * Checks and folds one complete line.
   *
   * @return false if it is the journal's torn last line
   */
  private boolean record(long segment, Path path, DecodeAhead.Item item, DecodeAhead reader,
      Checkpoint checkpoint) throws IOException {
    LineReader.Line line = item.line;
    long at = line.offset();
    CommitRecord r;
    try {
      // Verify never reads payloads: parse them (the record must be valid JSON), build none;
      // decoded ahead on another thread where one is free (DecodeAhead).
      r = item.record();
    } catch (JournalLine.InvalidRecordException e) {
      journalDamage(Kind.BAD_RECORD, path, at, e.getMessage(), null, null);
      lostSync();
      return true;
    } catch (JournalLine.DefectException e) {
      if (!validFollows(path, reader.position(), segment, synced ? end.revision + 1 : 0)) {
        // the readers' tail: a torn last line (a power cut may keep its newline)
        return tornTail(path, at, e.getMessage());
      }
      journalDamage(Kind.BAD_CHECKSUM, path, at, e.getMessage(), null, null);
      lostSync();
      return true;
    } catch (CommitRecord.FutureFormatException e) {
      journalDamage(Kind.BAD_RECORD, path, at, e.getMessage(),
          Integer.toString(CommitRecord.GROUPED_FORMAT), Long.toString(e.format()));
      lostSync();
      return true;
    }
    if (!r.root().equals(root)) {
      journalDamage(Kind.WRONG_ROOT, path, at, "record of another ledger", root, r.root());
    }
    if (synced) {
      if (r.revision() != end.revision + 1) {
        journalDamage(Kind.REVISION_GAP, path, at, "revisions are not consecutive",
            Long.toString(end.revision + 1), Long.toString(r.revision()));
        folding = false;
      } else if (r.firstSequence() != end.nextSequence) {
        journalDamage(Kind.SEQUENCE_GAP, path, at, "event sequences are not consecutive",
            Long.toString(end.nextSequence), Long.toString(r.firstSequence()));
        folding = false;
      }
    }
    if (at == 0 && r.revision() != segment) {
      journalDamage(Kind.SEGMENT_MISNAMED, path, at, "a segment is named for its first "
          + "revision", Long.toString(segment), Long.toString(r.revision()));
    }
    synced = true;
    if (folding) {
      if (r.state() == null && end.state == null) {
        journalDamage(Kind.BAD_STATE_CHANGE, path, at, "revision " + r.revision()
            + " is a patch but no state precedes it", null, null);
        folding = false;
      } else {
        try {
          end.fold(r);
        } catch (RuntimeException e) {
          journalDamage(Kind.BAD_STATE_CHANGE, path, at, "revision " + r.revision()
              + "'s patch does not apply: " + e.getMessage(), null, null);
          folding = false;
        }
      }
    }
    records++;
    events += r.events().size();
    end.revision = r.revision();
    end.nextSequence = r.nextSequence();
    end.stateVersion = r.stateVersion();
    end.updatedAt = r.committedAt();
    end.segment = segment;
    end.end = at + line.length() + 1;
    if (r.commandId() != null) {
      CommandIndex.Entry entry = new CommandIndex.Entry(r.commandDigest(), r.revision(),
          segment, at);
      CommandIndex.Entry before = commands.putIfAbsent(r.commandId(), entry);
      if (before != null) {
        journalDamage(Kind.DUPLICATE_COMMAND, path, at, "command " + r.commandId()
            + " was already recorded", "revision " + before.revision() + " only",
            "also revision " + r.revision());
      }
    }
    if (checkpoint != null && checkpoint.revision() == r.revision()) {
      compare(checkpoint);
    }
    return true;
  }

  /** Set when a torn last line ended the journal. */
  private boolean finishedByTail;

  private boolean tornTail(Path path, long at, String what) {
    note(Kind.TORN_TAIL, path, at, what + "; nothing valid follows: the next writer cuts it");
    finishedByTail = true;
    return false;
  }

  private void compare(Checkpoint c) {
    if (folding) {
      check(Objects.equals(c.state(), end.state), "state", "the state folded from the journal",
          "a different state");
    }
    check(c.stateVersion() == end.stateVersion, "stateVersion",
        Integer.toString(end.stateVersion), Integer.toString(c.stateVersion()));
    check(Objects.equals(c.updatedAt(), end.updatedAt), "updatedAt", String.valueOf(end.updatedAt),
        String.valueOf(c.updatedAt()));
    check(c.nextSequence() == end.nextSequence, "journal.nextSequence",
        Long.toString(end.nextSequence), Long.toString(c.nextSequence()));
    check(c.segment() == end.segment && c.offset() == end.end, "journal position",
        "segment " + end.segment + " offset " + end.end,
        "segment " + c.segment() + " offset " + c.offset());
  }

  private void check(boolean ok, String field, String expected, String actual) {
    if (!ok) {
      add(Kind.CHECKPOINT_MISMATCH, stateFile, -1, "field '" + field + "' of the checkpoint at "
          + "revision " + end.revision + " disagrees with the journal", expected, actual);
    }
  }

  /** After damage: the next valid record sets the revision and sequence expected next. */
  private void lostSync() {
    synced = false;
    folding = false;
  }

  /** Whether the line at {@code offset} reads now as a complete record whose checksum holds. */
  private boolean wholeNow(Path path, long offset) throws IOException {
    try (LineReader again = new LineReader(path, offset, journal.maxLine())) {
      LineReader.Line line = again.next();
      return line != null && line.kind() == LineReader.Kind.COMPLETE && decodes(line);
    }
  }

  /**
   * Whether a line follows {@code from} in the segment that proves the bad line before it,
   * where {@code badRevision} was due (0 if not known), is damage
   * ({@link JournalLine#provesDamageBefore}), or a later segment does.
   */
  private boolean validFollows(Path path, long from, long segment, long badRevision)
      throws IOException {
    try (LineReader later = new LineReader(path, from, journal.maxLine())) {
      LineReader.Line line;
      while ((line = later.next()) != null) {
        if (line.kind() == LineReader.Kind.PADDING) {
          if (!later.skipZeros()) {
            break;
          }
          continue;
        }
        if (line.kind() == LineReader.Kind.ZERO_CUT) {
          continue;
        }
        if (line.kind() != LineReader.Kind.COMPLETE) {
          break;
        }
        if (JournalLine.provesDamageBefore(line.bytes(), line.length(), badRevision)) {
          return true;
        }
      }
    }
    for (long base : bases()) {
      if (base > segment) {
        return true;
      }
    }
    return false;
  }

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

  // ---------------------------------------------------------------- command index

  private void verifyCommandIndex(Checkpoint checkpoint) {
    Path commandsDir = dir.resolve("commands");
    Map<String, Boolean> seen = new LinkedHashMap<>();
    try {
      for (Path fan : sorted(commandsDir)) {
        String prefix = fan.getFileName().toString();
        if (!Files.isDirectory(fan) || !prefix.matches("[0-9a-f]{2}")) {
          note(Kind.UNKNOWN_FILE, fan, -1, "not a command index directory");
          continue;
        }
        for (Path file : sorted(fan)) {
          String name = file.getFileName().toString();
          if (!name.matches("[0-9a-f]{62}\\.json")) {
            note(Kind.UNKNOWN_FILE, file, -1, "not a command index entry");
            continue;
          }
          String id = "cmd_" + prefix + name.substring(0, 62);
          seen.put(id, Boolean.TRUE);
          verifyEntry(id, file, checkpoint);
        }
      }
    } catch (IOException e) {
      add(Kind.UNREADABLE, commandsDir, -1, "cannot list: " + e, null, null);
    }
    if (checkpoint == null) {
      return;
    }
    for (Map.Entry<String, CommandIndex.Entry> c : commands.entrySet()) {
      if (c.getValue().revision() <= checkpoint.revision() && !seen.containsKey(c.getKey())) {
        add(Kind.COMMAND_ENTRY_MISSING, index.path(c.getKey()), -1, "command " + c.getKey()
            + " of revision " + c.getValue().revision() + " is covered by the checkpoint at "
            + "revision " + checkpoint.revision() + " but has no index entry", null, null);
      }
    }
  }

  private void verifyEntry(String id, Path file, Checkpoint checkpoint) {
    CommandIndex.Entry entry;
    try {
      entry = index.find(id);
    } catch (CorruptLedgerException | UnsupportedFormatException e) {
      entry = settled(id, file, checkpoint, e);
      if (entry == null) {
        return;
      }
    } catch (LedgerIOException e) {
      add(Kind.UNREADABLE, file, -1, e.getMessage(), null, null);
      return;
    }
    if (entry == null) {
      return; // removed since listed
    }
    CommandIndex.Entry journaled = commands.get(id);
    if (journaled == null && retention != null
        && entry.revision() < retention.firstRevision()) {
      return; // the entry of a command whose record retention removed: kept on purpose
    }
    if (journaled != null) {
      if (!journaled.equals(entry)) {
        if (checkpoint == null || journaled.revision() > checkpoint.revision()) {
          // Entries are written before the checkpoint that covers them is published (whole,
          // by a rename; stores written before that wrote them in place, and a crash could
          // leave one garbled); the next checkpoint rewrites one that differs. Readers compare
          // commands against the journal record, never this.
          note(Kind.UNSETTLED_COMMAND_ENTRY, file, -1, "the entry of " + id + " (revision "
              + journaled.revision() + ", which no checkpoint covers yet) differs from its "
              + "commit: a checkpoint in progress, or damage the next checkpoint rewrites ("
              + describe(entry) + ")");
          return;
        }
        add(Kind.COMMAND_ENTRY_MISMATCH, file, -1, "the entry of " + id + " does not point at "
            + "the commit that carries it", describe(journaled), describe(entry));
      }
      return;
    }
    Path target = journal.segment(entry.segment());
    if (damagedLines.contains(target + ":" + entry.offset())
        || damagedLines.contains(target + ":-1")) {
      return; // it points at a record or segment already reported as damaged or missing
    }
    // a commit newer than the scan, or a command the journal does not hold
    CommitRecord r = recordAt(entry.segment(), entry.offset());
    if (r == null || r.revision() != entry.revision() || !id.equals(r.commandId())
        || !entry.digest().equals(r.commandDigest())) {
      add(Kind.COMMAND_ENTRY_MISMATCH, file, -1, "the entry of " + id + " points at no "
          + "commit that carries it", "a record of " + id, r == null ? "no record there"
          : "revision " + r.revision() + " with command " + r.commandId());
    }
  }

  /** The valid record of this ledger whose line starts at {@code offset}, or null. */
  private CommitRecord recordAt(long segment, long offset) {
    Path path = journal.segment(segment);
    if (segment < 1 || offset < 0 || !Files.exists(path)) {
      return null;
    }
    try {
      if (offset > 0) {
        try (LineReader before = new LineReader(path, offset - 1, journal.maxLine())) {
          LineReader.Line newline = before.next();
          if (newline == null || newline.kind() != LineReader.Kind.COMPLETE
              || newline.length() != 0) {
            return null;
          }
        }
      }
      try (LineReader reader = new LineReader(path, offset, journal.maxLine())) {
        LineReader.Line line = reader.next();
        if (line == null || line.kind() != LineReader.Kind.COMPLETE) {
          return null;
        }
        CommitRecord r = JournalLine.decode(line.bytes(), line.length());
        return r.root().equals(root) ? r : null;
      }
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /**
   * An entry that did not parse, read again once the checkpoint is read again: a writer
   * creates the entries of a checkpoint before publishing it, so an entry caught while being
   * written belongs to no published checkpoint. Returns the entry if it parses now; else
   * records damage if a published checkpoint covers its command (such an entry was complete
   * and forced, and is never rewritten), or a note if none does (a checkpoint in progress,
   * or damage the next checkpoint rewrites), and returns null.
   */
  private CommandIndex.Entry settled(String id, Path file, Checkpoint before,
      RuntimeException failure) {
    long covered = before == null ? 0 : before.revision();
    try {
      Checkpoint now = Checkpoint.read(stateFile, root, maxCheckpointBytes);
      if (now != null) {
        covered = Math.max(covered, now.revision());
      }
      CommandIndex.Entry again = index.find(id);
      if (again != null) {
        return again;
      }
      return null; // removed since listed
    } catch (LedgerException e) {
      failure = e;
    }
    CommandIndex.Entry journaled = commands.get(id);
    if (journaled != null && journaled.revision() <= covered) {
      add(Kind.BAD_COMMAND_ENTRY, file, -1, failure.getMessage(), null, null);
    } else {
      note(Kind.UNSETTLED_COMMAND_ENTRY, file, -1, "the entry of a command no checkpoint "
          + "covers yet does not parse: a checkpoint in progress, or damage the next "
          + "checkpoint rewrites (" + failure.getMessage() + ")");
    }
    return null;
  }

  private static String describe(CommandIndex.Entry e) {
    return "revision " + e.revision() + " at segment " + e.segment() + " offset " + e.offset()
        + " digest " + e.digest();
  }

  // ---------------------------------------------------------------- retention

  /** The retention marker this run started from, or null (the journal starts at 1). */
  RetentionMarker retention;
  /** The first revision of the journal: 1, or the retention marker's. */
  private long first = 1;

  /**
   * Reads {@code retention.json} and, if present, starts the fold at its base state: the
   * journal then begins at its first revision and sequence.
   *
   * @return false if the marker is damaged (recorded as journal damage: the journal's start
   *     is unknown)
   */
  private boolean startAtRetention() {
    try {
      retention = RetentionMarker.read(dir, root, maxCheckpointBytes);
    } catch (CorruptLedgerException | UnsupportedFormatException e) {
      journalDamage(Kind.BAD_RETENTION_MARKER, dir.resolve(RetentionMarker.FILE), -1,
          e.getMessage(), null, null);
      return false;
    } catch (LedgerIOException e) {
      journalDamage(Kind.UNREADABLE, dir.resolve(RetentionMarker.FILE), -1, e.getMessage(),
          null, null);
      return false;
    }
    if (retention != null) {
      first = retention.firstRevision();
      end.revision = retention.baseRevision();
      end.nextSequence = retention.firstSequence();
      end.state = retention.baseState();
      end.stateVersion = retention.baseStateVersion();
      end.updatedAt = retention.baseUpdatedAt();
      end.segment = first;
      end.end = 0;
    }
    return true;
  }

  /**
   * Whether a retention moved the journal's start since this run read the marker: its
   * findings are then those of a journal being cut under it, and the run is repeated.
   */
  boolean retentionMoved() {
    try {
      RetentionMarker now = RetentionMarker.read(dir, root, maxCheckpointBytes);
      return (now == null ? 1 : now.firstRevision()) != first;
    } catch (LedgerException e) {
      return false; // reported by the run itself, or by the next one
    }
  }

  // ---------------------------------------------------------------- helpers

  private List<Long> bases() {
    return journal.bases();
  }

  /**
   * The names of a ledger's journal segments ({@link JournalFiles#name}) and the line bound:
   * only what the verifier needs, with no tie to a store's live limits.
   */
  private record Segments(Path dir, int maxLine) {
    private static final java.util.regex.Pattern NAME =
        java.util.regex.Pattern.compile("\\d{20}\\.jsonl");

    Path segment(long base) {
      return dir.resolve(JournalFiles.name(base));
    }

    /** Bases of every segment present, ascending. */
    List<Long> bases() {
      List<Long> bases = new ArrayList<>();
      try {
        for (Path entry : sorted(dir)) {
          String name = entry.getFileName().toString();
          if (NAME.matcher(name).matches()) {
            bases.add(Long.parseLong(name.substring(0, 20)));
          }
        }
      } catch (IOException e) {
        throw new LedgerIOException("listing journal segments", dir, e);
      }
      return bases;
    }
  }

  /** The entries of {@code dir} in name order; empty if it does not exist. */
  static List<Path> sorted(Path dir) throws IOException {
    List<Path> out = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      entries.forEach(out::add);
    } catch (NoSuchFileException e) {
      return out;
    }
    out.sort(null);
    return out;
  }

  private static long size(Path path) {
    try {
      return Files.size(path);
    } catch (IOException e) {
      return 0;
    }
  }

  private void maybeReport(long position) {
    if (bytesBefore + position - lastReport >= PROGRESS_BYTES) {
      lastReport = bytesBefore + position;
      progress.accept(new VerifyProgress(root, ledger, ledgers, lastReport, bytesTotal));
    }
  }

  private void report() {
    lastReport = bytesBefore;
    progress.accept(new VerifyProgress(root, ledger, ledgers, bytesBefore, bytesTotal));
  }

  private void journalDamage(Kind kind, Path file, long offset, String detail, String expected,
      String actual) {
    Finding f = new Finding(kind, root, file, offset, detail, expected, actual);
    findings.add(f);
    damagedLines.add(file + ":" + offset);
    if (firstJournalDamage == null) {
      firstJournalDamage = f;
    }
  }

  private void add(Kind kind, Path file, long offset, String detail, String expected,
      String actual) {
    findings.add(new Finding(kind, root, file, offset, detail, expected, actual));
  }

  private void note(Kind kind, Path file, long offset, String detail) {
    findings.add(new Finding(kind, root, file, offset, detail, null, null));
  }

  /** The state folded to {@link #end}, or null when damage stopped the fold. */
  JsonNode foldedState() {
    return folding ? end.state : null;
  }

  boolean endedByTornTail() {
    return finishedByTail;
  }
}
