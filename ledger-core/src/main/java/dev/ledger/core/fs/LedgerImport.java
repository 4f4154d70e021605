package dev.ledger.core.fs;

import dev.ledger.core.ImportResult;
import dev.ledger.core.InvalidExportException;
import dev.ledger.core.LedgerExistsException;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.internal.io.Identifiers;
import dev.ledger.core.internal.io.SafeFiles;
import dev.ledger.core.internal.journal.CommitRecord;
import dev.ledger.core.internal.journal.JournalLine;
import dev.ledger.core.internal.journal.LedgerExportFormat;
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
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Rebuilds a ledger from an export ({@link LedgerExportFormat}) in two passes, then publishes it
 * with one atomic directory rename.
 *
 * <pre>
 * 1. validate: header, then every record line read, checked and folded (checksum, root,
 *    revision and sequence continuity, event ids, patches, a command id recorded once, the
 *    record count the header names, nothing after it) while it is copied to a spool file in
 *    the system's temp directory. A refusal here has written nothing in the store.
 * 2. build, from the spool:
 *    ledgers/.import.&lt;pid&gt;.&lt;n&gt;/         never a root id's directory (a root id does not
 *                                         start with '.'), so no reader, writer or verify
 *                                         looks at it
 *      journal/&lt;20-digit revision&gt;.jsonl   the export's record lines, byte for byte, in
 *                                         segments rolled at the store's segmentBytes
 *      commands/&lt;2 hex&gt;/&lt;62 hex&gt;.json     an entry per command id ({@link CommandIndex})
 *      state.json                         checkpoint at the last revision ({@link Checkpoint})
 * 3. rename ledgers/.import.... to ledgers/&lt;root dir&gt;, force ledgers/      (commit point)
 * </pre>
 * Under {@code SYNC} durability every file and directory of the temp tree is forced before
 * the rename and {@code ledgers/} after it, so an acknowledged import survives a power cut.
 * A failure in step 2 removes the temp directory; a crash there leaves an {@code .import.*}
 * directory that nothing reads, which the next writable open of the store removes once the
 * process named by its pid is gone ({@code LedgerTrash}); a crash after the rename leaves
 * the whole ledger. The spool file is always removed.
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
    LedgerExportFormat.Lines in = new LedgerExportFormat.Lines(input, limits.maxLine());
    LedgerExportFormat.Header header = LedgerExportFormat.readHeader(in);
    String root = header.root();
    Path target = ledgers.resolve(Identifiers.toDirectoryName("root id", root));
    refuseExisting(root, target);
    Path spool = null;
    // A name no other import gets, in this process (a counter) or another (the pid, which
    // also lets a store that opens later remove it once this process is gone).
    Path temp = SafeFiles.uniqueSibling(ledgers.resolve("import"), "");
    try {
      spool = Files.createTempFile("ledger-import-", ".jsonl");
      LedgerExportFormat.Validator folded = validate(in, header, spool, limits);
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

  /**
   * Reads every record line, checks it and folds it, copying the lines to {@code spool}:
   * nothing in the store is written before the whole input has passed.
   */
  private static LedgerExportFormat.Validator validate(LedgerExportFormat.Lines in,
      LedgerExportFormat.Header header, Path spool, StoreLimits limits) throws IOException {
    LedgerExportFormat.Validator folded = new LedgerExportFormat.Validator(header);
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(spool), 64 * 1024)) {
      folded.readAll(in, (record, line, length) -> {
        out.write(line, 0, length);
        out.write('\n');
      });
    }
    long size = checkpoint(folded, 1, 0).encode().length;
    if (size > limits.maxCheckpointBytes()) {
      throw new InvalidExportException(0, "the state at revision " + folded.last().revision()
          + " takes " + size + " bytes, more than this store reads ("
          + limits.maxCheckpointBytes() + "); open the store with larger limits");
    }
    return folded;
  }

  private static Checkpoint checkpoint(LedgerExportFormat.Validator f, long segment,
      long end) {
    CommitRecord last = f.last();
    return new Checkpoint(last.root(), last.revision(), last.committedAt(), f.nextSequence(),
        segment, end, f.state(), last.stateVersion());
  }

  /** Writes the validated ledger into {@code temp}: segments, command index, checkpoint. */
  private static ImportResult build(Path spool, LedgerExportFormat.Validator folded, Path temp,
      StoreLimits limits, long segmentBytes, boolean sync) throws IOException {
    Path journalDir = temp.resolve("journal");
    SafeFiles.createDirectoriesBelow(temp.getParent(), journalDir, sync);
    Map<String, CommandIndex.Entry> commands = new LinkedHashMap<>();
    long segment = 0;
    long end = 0;
    FileChannel channel = null;
    try (InputStream lines = Files.newInputStream(spool)) {
      LedgerExportFormat.Lines in = new LedgerExportFormat.Lines(lines, limits.maxLine());
      for (long revision = 1; revision <= folded.last().revision(); revision++) {
        byte[] line = in.next(revision + 1);
        int length = in.length();
        CommitRecord r = JournalLine.decode(line, length);
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
        byte[] bytes = Arrays.copyOf(line, length + 1);
        bytes[length] = '\n';
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
    return new ImportResult(folded.last().root(), folded.last().revision(),
        folded.nextSequence() - 1, commands.size());
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
}
