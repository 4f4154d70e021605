package dev.ledger.core.fs;

import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.internal.io.SafeFiles;
import dev.ledger.core.internal.journal.PositionedRecord;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Copies one ledger's directory into a new one, consistent at one revision, while writers
 * may go on committing to the source (or under its lock, for an archive).
 *
 * <pre>
 * 0. retention.json, if any (written before a retention deletes segments)
 * 1. state.json, if any, copied first (the checkpoint; written atomically by writers, so
 *    the copy is one whole version of it)
 * 2. commands/&lt;2 hex&gt;/&lt;62 hex&gt;.json, every entry (temp files, dot names, are left out)
 * 3. the journal end: a reader's scan from the copied checkpoint to the last complete,
 *    checksummed record (an append in progress, a torn tail and preallocated zeros are left
 *    out): segment S, offset E, revision R
 * 4. every segment before S whole, then S up to E
 * </pre>
 * Why this order gives a copy consistent at R: a checkpoint is written after the commits
 * it covers were appended, and command index entries before the checkpoint that covers
 * them, after their commits; so what steps 1 and 2 copied points at revisions at most R,
 * which step 3 reads later. Records are append-only and only bytes after the last committed
 * record are ever cut, so the bytes of step 4 are those step 3 checked. The copy has no lock
 * file (a writer of the copy creates one) and no preallocated zeros. With {@code sync}
 * every file is forced, and every directory after its entries are made.
 */
final class LedgerCopy {
  private static final int BUFFER = 64 * 1024;

  private LedgerCopy() {}

  /**
   * Copies the ledger {@code root} from {@code from} into {@code to} (which must not exist;
   * its parent must).
   *
   * @return the revision of the copy; 0 if the source holds no commit (the copy is then
   *     left with what was copied; the caller removes it)
   * @throws NoSuchFileException if the source disappeared while being copied
   * @throws CorruptLedgerException if the source journal is damaged before its tail
   */
  static long copy(String root, Path from, Path to, StoreLimits limits, boolean sync)
      throws IOException {
    SafeFiles.refuseLink(from);
    Files.createDirectory(to, SafeFiles.privateDirectory(to));
    Path journalTo = to.resolve("journal");
    Files.createDirectory(journalTo, SafeFiles.privateDirectory(journalTo));
    // The retention marker first (a retention writes it before it deletes segments): with it,
    // a ledger whose history was cut reads from the marker's start, here as in the source.
    try {
      write(to.resolve(RetentionMarker.FILE), SafeFiles.readBounded(
          from.resolve(RetentionMarker.FILE), limits.maxCheckpointBytes()), sync);
    } catch (NoSuchFileException e) {
      // never retained
    }
    Path stateFrom = from.resolve("state.json");
    Path stateTo = to.resolve("state.json");
    byte[] checkpointBytes = null;
    try {
      checkpointBytes = SafeFiles.readBounded(stateFrom, limits.maxCheckpointBytes());
    } catch (NoSuchFileException e) {
      // no checkpoint yet: the scan starts at the journal's start
    }
    if (checkpointBytes != null) {
      write(stateTo, checkpointBytes, sync);
    }
    copyCommands(from.resolve("commands"), to.resolve("commands"), sync);

    JournalFiles source = new JournalFiles(from.resolve("journal"), root, limits);
    LedgerReader reader = new LedgerReader(root, source, stateTo, limits);
    Tail t = reader.start(checkpointBytes == null ? null : reader.readCheckpoint());
    if (!Files.exists(source.segment(t.segment))) {
      reader.missingSegment(t); // throws if the checkpoint points into a missing segment
      return 0;
    }
    reader.checkPosition(t);
    long revision;
    long lastSegment;
    long end;
    try (JournalScanner scan = reader.scanner(t)) {
      PositionedRecord r;
      while ((r = scan.next()) != null) {
        // only the end matters; each record was checked by the scan
        t.revision = r.record().revision();
      }
      revision = t.revision;
      lastSegment = scan.segment();
      end = scan.end();
    }
    for (long base : source.bases()) {
      if (base > lastSegment) {
        break; // rolled after the scan: later than the revision copied
      }
      copyFile(source.segment(base), journalTo.resolve(JournalFiles.name(base)),
          base == lastSegment ? end : -1, sync);
    }
    if (sync) {
      SafeFiles.forceDirectory(journalTo);
      SafeFiles.forceDirectory(to);
    }
    return revision;
  }

  private static void copyCommands(Path from, Path to, boolean sync) throws IOException {
    if (!Files.isDirectory(from)) {
      return;
    }
    List<Path> dirs = new ArrayList<>();
    Files.walkFileTree(from, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs)
          throws IOException {
        Path copy = to.resolve(from.relativize(dir).toString());
        // createDirectory, not createDirectories: the latter swallows a first failure and
        // tries again, which would go on past an I/O error (or a simulated power cut).
        Files.createDirectory(copy, SafeFiles.privateDirectory(copy));
        dirs.add(copy);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        if (attrs.isRegularFile() && !file.getFileName().toString().startsWith(".")) {
          try {
            copyFile(file, to.resolve(from.relativize(file).toString()), -1, sync);
          } catch (NoSuchFileException e) {
            // removed since it was listed (a repair drops entries of no command)
          }
        }
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
        if (e instanceof NoSuchFileException) {
          return FileVisitResult.CONTINUE;
        }
        throw e;
      }
    });
    if (sync) {
      for (Path dir : dirs) {
        SafeFiles.forceDirectory(dir);
      }
    }
  }

  private static void write(Path target, byte[] bytes, boolean sync) throws IOException {
    try (FileChannel out = SafeFiles.open(target, Set.of(StandardOpenOption.CREATE_NEW,
        StandardOpenOption.WRITE))) {
      SafeFiles.writeFully(out, ByteBuffer.wrap(bytes), 0);
      if (sync) {
        out.force(true);
      }
    }
  }

  /**
   * Copies {@code length} bytes of {@code source} ({@code -1}: to its end) into the new file
   * {@code target}, through a buffer (no {@code transferTo}: a wrapping file system sees
   * every write).
   *
   * @throws IOException if the source is shorter than {@code length}
   */
  static void copyFile(Path source, Path target, long length, boolean sync)
      throws IOException {
    try (FileChannel in = SafeFiles.openRead(source);
        FileChannel out = SafeFiles.open(target, Set.of(StandardOpenOption.CREATE_NEW,
            StandardOpenOption.WRITE))) {
      ByteBuffer buffer = ByteBuffer.allocate(BUFFER);
      long at = 0;
      while (length < 0 || at < length) {
        buffer.clear();
        if (length >= 0) {
          buffer.limit((int) Math.min(BUFFER, length - at));
        }
        int n = in.read(buffer, at);
        if (n < 0) {
          if (length >= 0) {
            throw new IOException(source + " ended at " + at + " bytes, before the " + length
                + " to copy");
          }
          break;
        }
        buffer.flip();
        SafeFiles.writeFully(out, buffer, at);
        at += n;
      }
      if (sync) {
        out.force(true);
      }
    }
  }
}
