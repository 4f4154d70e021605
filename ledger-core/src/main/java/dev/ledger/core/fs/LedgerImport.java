package dev.ledger.core.fs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.core.Event;
import dev.ledger.core.ImportResult;
import dev.ledger.core.InvalidExportException;
import dev.ledger.core.LedgerExistsException;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.internal.io.Identifiers;
import dev.ledger.core.internal.io.SafeFiles;
import dev.ledger.core.internal.journal.CommitRecord;
import dev.ledger.core.internal.journal.JournalLine;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Rebuilds a ledger from an export ({@link LedgerExport}) in two passes, then publishes it
 * with one atomic directory rename.
 *
 * <pre>
 * 1. validate: header, then every record line read, checked and folded (checksum, root,
 *    revision and sequence continuity, event ids, patches, a command id recorded once, the
 *    record count the header names, nothing after it) while it is copied to a spool file in
 *    the system's temp directory. A refusal here has written nothing in the store.
 * 2. build, from the spool:
 *    ledgers/.import-&lt;pid&gt;-&lt;nanos&gt;/     never a root id's directory (a root id does not
 *                                         start with '.'), so no reader, writer or verify
 *                                         looks at it
 *      journal/&lt;20-digit revision&gt;.jsonl   the export's record lines, byte for byte, in
 *                                         segments rolled at the store's segmentBytes
 *      commands/&lt;2 hex&gt;/&lt;62 hex&gt;.json     an entry per command id ({@link CommandIndex})
 *      state.json                         checkpoint at the last revision ({@link Checkpoint})
 * 3. rename ledgers/.import-... to ledgers/&lt;root dir&gt;, force ledgers/      (commit point)
 * </pre>
 * Under {@code SYNC} durability every file and directory of the temp tree is forced before
 * the rename and {@code ledgers/} after it, so an acknowledged import survives a power cut.
 * A failure in step 2 removes the temp directory; a crash there leaves an {@code .import-*}
 * directory that nothing reads (delete it by hand); a crash after the rename leaves the whole
 * ledger. The spool file is always removed.
 *
 * <p>A root id whose directory exists is refused before anything is written, and again before
 * and at the rename: a rename onto a directory that is not empty fails, and the checks refuse
 * the empty directory a writer may leave after a refused first commit, which a rename would
 * replace.
 */
final class LedgerImport {
  private LedgerImport() {}

  static ImportResult importLedger(InputStream input, Path ledgers, StoreLimits limits,
      long segmentBytes, boolean sync) {
    LineSource in = new LineSource(input, limits.maxLine());
    byte[] first = in.next(1);
    if (first == null) {
      throw new InvalidExportException(0, "the input is empty");
    }
    LedgerExport.Header header = LedgerExport.readHeader(first, in.length);
    String root = header.root();
    if (!Identifiers.isValid(root)) {
      throw new InvalidExportException(1, "header root '" + root + "' is not a valid root id");
    }
    Path target = ledgers.resolve(Identifiers.toDirectoryName("root id", root));
    refuseExisting(root, target);
    Path spool = null;
    Path temp = ledgers.resolve(".import-" + ProcessHandle.current().pid() + "-"
        + System.nanoTime());
    try {
      spool = Files.createTempFile("ledger-import-", ".jsonl");
      Folded folded = validate(in, header, spool, limits);
      refuseExisting(root, target);
      ImportResult result = build(spool, folded, temp, limits, segmentBytes, sync);
      refuseExisting(root, target);
      try {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
      } catch (FileAlreadyExistsException | DirectoryNotEmptyException e) {
        throw new LedgerExistsException(root, "its directory " + target
            + " appeared during the import");
      }
      if (sync) {
        SafeFiles.forceDirectory(ledgers);
      }
      return result;
    } catch (IOException e) {
      LedgerIOException failure = new LedgerIOException("importing ledger '" + root + "'",
          spool == null ? temp : spool, e);
      cleanUp(spool, temp, failure);
      throw failure;
    } catch (RuntimeException e) {
      cleanUp(spool, temp, e);
      throw e;
    } finally {
      cleanUp(spool, null, null);
    }
  }

  private static void refuseExisting(String root, Path target) {
    if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
      throw new LedgerExistsException(root, StoreVerifier.holdsLedger(target)
          ? "the store holds it" : "its directory " + target + " exists (a writer created it)");
    }
  }

  /** The ledger an export folds to: what its checkpoint will hold. */
  private record Folded(String root, long revisions, CommitRecord last, JsonNode state,
      long nextSequence) {}

  /**
   * Reads every record line, checks it and folds it, copying the lines to {@code spool}:
   * nothing in the store is written before the whole input has passed.
   */
  private static Folded validate(LineSource in, LedgerExport.Header header, Path spool,
      StoreLimits limits) throws IOException {
    String root = header.root();
    Set<String> commands = new HashSet<>();
    JsonNode state = null;
    long nextSequence = 1;
    CommitRecord last = null;
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(spool), 64 * 1024)) {
      for (long revision = 1; revision <= header.revisions(); revision++) {
        long lineNumber = revision + 1;
        byte[] line = in.next(lineNumber);
        if (line == null) {
          throw new InvalidExportException(lineNumber, "the input ends after " + (revision - 1)
              + " of " + header.revisions() + " records (truncated)");
        }
        CommitRecord r = decode(line, in.length, lineNumber);
        check(r, root, revision, nextSequence, state, lineNumber);
        if (r.commandId() != null && !commands.add(r.commandId())) {
          throw new InvalidExportException(lineNumber, "command " + r.commandId()
              + " is recorded twice");
        }
        out.write(line, 0, in.length);
        out.write('\n');
        state = r.applyTo(state);
        nextSequence = r.nextSequence();
        last = r;
      }
    }
    if (in.next(header.revisions() + 2) != null) {
      throw new InvalidExportException(header.revisions() + 2, "more lines than the "
          + header.revisions() + " records the header names");
    }
    Folded folded = new Folded(root, header.revisions(), last, state, nextSequence);
    long size = checkpoint(folded, 1, 0).encode().length;
    if (size > limits.maxCheckpointBytes()) {
      throw new InvalidExportException(0, "the state at revision " + last.revision() + " takes "
          + size + " bytes, more than this store reads (" + limits.maxCheckpointBytes()
          + "); open the store with larger limits");
    }
    return folded;
  }

  private static Checkpoint checkpoint(Folded f, long segment, long end) {
    return new Checkpoint(f.root(), f.last().revision(), f.last().committedAt(),
        f.nextSequence(), segment, end, f.state(), f.last().stateVersion());
  }

  /** Writes the validated ledger into {@code temp}: segments, command index, checkpoint. */
  private static ImportResult build(Path spool, Folded folded, Path temp, StoreLimits limits,
      long segmentBytes, boolean sync) throws IOException {
    Path journalDir = temp.resolve("journal");
    SafeFiles.createDirectoriesBelow(temp.getParent(), journalDir, sync);
    Map<String, CommandIndex.Entry> commands = new LinkedHashMap<>();
    long segment = 0;
    long end = 0;
    FileChannel channel = null;
    try (InputStream lines = Files.newInputStream(spool)) {
      LineSource in = new LineSource(lines, limits.maxLine());
      for (long revision = 1; revision <= folded.revisions(); revision++) {
        byte[] line = in.next(revision + 1);
        CommitRecord r = decode(line, in.length, revision + 1);
        if (channel == null || end >= segmentBytes) {
          if (channel != null) {
            close(channel, sync);
          }
          segment = revision;
          end = 0;
          channel = SafeFiles.open(journalDir.resolve(JournalFiles.name(segment)),
              Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
        }
        if (r.commandId() != null) {
          commands.put(r.commandId(), new CommandIndex.Entry(r.commandDigest(), r.revision(),
              segment, end));
        }
        byte[] bytes = Arrays.copyOf(line, in.length + 1);
        bytes[in.length] = '\n';
        SafeFiles.writeFully(channel, ByteBuffer.wrap(bytes), end);
        end += bytes.length;
      }
    } finally {
      if (channel != null) {
        close(channel, sync);
      }
    }
    if (sync) {
      SafeFiles.forceDirectory(journalDir);
    }
    new CommandIndex(temp.resolve("commands")).write(commands, sync);
    SafeFiles.replace(temp.resolve("state.json"), checkpoint(folded, segment, end).encode(),
        sync);
    if (sync) {
      SafeFiles.forceDirectory(temp);
    }
    return new ImportResult(folded.root(), folded.last().revision(), folded.nextSequence() - 1,
        commands.size());
  }

  private static CommitRecord decode(byte[] line, int length, long lineNumber) {
    try {
      return JournalLine.decode(line, length);
    } catch (CommitRecord.FutureFormatException e) {
      throw new InvalidExportException(lineNumber, e.getMessage());
    } catch (JournalLine.DefectException e) {
      throw new InvalidExportException(lineNumber, e.getMessage());
    }
  }

  /** The continuity a journal's scanner checks, plus event ids. */
  private static void check(CommitRecord r, String root, long revision, long nextSequence,
      JsonNode state, long line) {
    if (!r.root().equals(root)) {
      throw new InvalidExportException(line, "record of root '" + r.root() + "', expected '"
          + root + "'");
    }
    if (r.revision() != revision) {
      throw new InvalidExportException(line, "revision " + r.revision() + ", expected "
          + revision);
    }
    if (r.firstSequence() != nextSequence) {
      throw new InvalidExportException(line, "first sequence " + r.firstSequence()
          + ", expected " + nextSequence);
    }
    if (r.state() == null && state == null) {
      throw new InvalidExportException(line, "revision " + revision
          + " is a patch but no state precedes it");
    }
    for (Event e : r.events()) {
      String expected = CommitRecord.eventId(root, e.sequence());
      if (!e.id().equals(expected)) {
        throw new InvalidExportException(line, "event " + e.sequence() + " has id " + e.id()
            + ", expected " + expected);
      }
    }
  }

  private static void close(FileChannel channel, boolean sync) throws IOException {
    try (channel) {
      if (sync) {
        channel.force(true);
      }
    }
  }

  /** Removes the spool file and the temp directory; failures join {@code failure}. */
  private static void cleanUp(Path spool, Path temp, Throwable failure) {
    try {
      if (spool != null) {
        Files.deleteIfExists(spool);
      }
    } catch (IOException e) {
      if (failure != null) {
        failure.addSuppressed(e);
      }
    }
    if (temp != null) {
      deleteTree(temp, failure);
    }
  }

  /** Removes what an import left in its temp directory; failures join {@code failure}. */
  private static void deleteTree(Path dir, Throwable failure) {
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try {
      Files.walkFileTree(dir, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
            throws IOException {
          Files.delete(file);
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
          if (e != null) {
            throw e;
          }
          Files.delete(d);
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      failure.addSuppressed(e);
    }
  }

  /** Lines of the input, each bounded; a last line without its newline is a truncation. */
  private static final class LineSource {
    private final InputStream in;
    private final int maxLine;
    private byte[] buffer = new byte[8192];
    /** Length of the line {@link #next} returned last. */
    int length;

    LineSource(InputStream in, int maxLine) {
      this.in = new BufferedInputStream(in, 64 * 1024);
      this.maxLine = maxLine;
    }

    /** The next line without its newline (valid up to {@link #length}), or null at the end. */
    byte[] next(long lineNumber) {
      int n = 0;
      try {
        while (true) {
          int b = in.read();
          if (b < 0) {
            if (n == 0) {
              return null;
            }
            throw new InvalidExportException(lineNumber, "the input ends inside this line,"
                + " after " + n + " bytes without a newline (truncated)");
          }
          if (b == '\n') {
            length = n;
            return buffer;
          }
          if (n == maxLine) {
            throw new InvalidExportException(lineNumber, "line longer than " + maxLine
                + " bytes, the longest this store reads");
          }
          if (n == buffer.length) {
            buffer = Arrays.copyOf(buffer, (int) Math.min((long) n * 2, maxLine));
          }
          buffer[n++] = (byte) b;
        }
      } catch (IOException e) {
        throw new LedgerIOException(null, "Reading the ledger export failed at line "
            + lineNumber + ": " + e.getMessage(), e);
      }
    }
  }
}
