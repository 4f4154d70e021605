package dev.ledger.core.fs;

import dev.ledger.core.LedgerIOException;
import dev.ledger.core.LedgerNotFoundException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.RepairResult;
import dev.ledger.core.UnrepairableLedgerException;
import dev.ledger.core.VerifyReport.Finding;
import dev.ledger.core.internal.io.FileLocks;
import dev.ledger.core.internal.io.SafeFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Rebuilds one ledger's {@code state.json} and command index from its journal, under the
 * ledger's writer lock. The journal is read whole from its first segment (or from
 * {@code retention.json}'s first revision and base state, after a retention), as
 * {@link LedgerVerifier} reads it; any damage before its tail refuses the repair before a
 * byte is written. Then, in the order a checkpoint writes them: each command index entry that
 * is missing or differs (temp file, force, rename, directory force), entries that name no
 * command of the journal removed (directory forced), and last {@code state.json} at the end
 * of the journal, if it differs. A crash at any step leaves a ledger that a second repair
 * finishes; a torn tail is left for the next writer to cut, as always.
 */
final class LedgerRepair {
  private LedgerRepair() {}

  static RepairResult repair(StoreVerifier verifier, String root, Path dir,
      LedgerOptions options) {
    if (!StoreVerifier.holdsLedger(dir)) {
      throw new LedgerNotFoundException(root);
    }
    boolean sync = options.durability() == dev.ledger.core.Durability.SYNC;
    // A first read without the lock refuses a damaged journal before even the lock file
    // is touched; the read under the lock is the one the repair trusts.
    refuseDamage(root, scan(verifier, root, dir));
    try (FileLocks.Held held = FileLocks.acquire(dir.resolve(".lock"), options.lockTimeout())) {
      LedgerVerifier v = scan(verifier, root, dir);
      refuseDamage(root, v);
      Path journalDir = dir.resolve("journal");
      if (v.end.revision == 0) {
        throw new UnrepairableLedgerException(root, journalDir, -1,
            "the journal holds no commit to rebuild from");
      }
      held.verify();
      CommandIndex index = new CommandIndex(dir.resolve("commands"));
      int written = 0;
      for (Map.Entry<String, CommandIndex.Entry> c : v.commands.entrySet()) {
        if (index.replace(c.getKey(), c.getValue(), sync)) {
          written++;
        }
      }
      long keptBelow = v.retention == null ? 1 : v.retention.firstRevision();
      int removed = removeStrayEntries(index, dir.resolve("commands"), v.commands, keptBelow,
          sync);
      Path stateFile = dir.resolve("state.json");
      Checkpoint checkpoint = new Checkpoint(root, v.end.revision, v.end.updatedAt,
          v.end.nextSequence, v.end.segment, v.end.end, v.foldedState(), v.end.stateVersion);
      byte[] content = checkpoint.encode();
      boolean rewrite = !Arrays.equals(existing(stateFile,
          verifier.maxCheckpointBytes()), content);
      if (rewrite) {
        SafeFiles.replace(stateFile, content, sync);
      }
      return new RepairResult(root, v.end.revision, rewrite, written, removed);
    } catch (IOException e) {
      throw new LedgerIOException("repairing ledger '" + root + "'", dir, e);
    }
  }

  private static LedgerVerifier scan(StoreVerifier verifier, String root, Path dir) {
    LedgerVerifier v = verifier.verifier(root, dir, p -> { }, 0, 1);
    v.scanJournal(null);
    return v;
  }

  private static void refuseDamage(String root, LedgerVerifier v) {
    Finding damage = v.firstJournalDamage;
    if (damage != null) {
      throw new UnrepairableLedgerException(root, damage.file(), damage.offset(),
          "the journal is damaged before its tail: " + damage.detail()
              + (damage.expected() == null && damage.actual() == null ? ""
              : " (expected " + damage.expected() + ", actual " + damage.actual() + ")"));
    }
  }

  /**
   * Removes entry files whose command the journal does not hold; returns how many. An entry
   * of a revision before {@code keptBelow} (a command whose record a retention removed) is
   * kept: it is all that makes the command replay.
   */
  private static int removeStrayEntries(CommandIndex index, Path commandsDir,
      Map<String, CommandIndex.Entry> known, long keptBelow, boolean sync) throws IOException {
    int removed = 0;
    Set<Path> dirs = new LinkedHashSet<>();
    for (Path fan : LedgerVerifier.sorted(commandsDir)) {
      String prefix = fan.getFileName().toString();
      if (!Files.isDirectory(fan) || !prefix.matches("[0-9a-f]{2}")) {
        continue; // not ours: left alone
      }
      for (Path file : LedgerVerifier.sorted(fan)) {
        String name = file.getFileName().toString();
        String id = "cmd_" + prefix + name.substring(0, Math.min(62, name.length()));
        if (name.matches("[0-9a-f]{62}\\.json") && !known.containsKey(id)
            && !removedByRetention(index, id, keptBelow)) {
          Files.delete(file);
          dirs.add(fan);
          removed++;
        }
      }
    }
    if (sync) {
      for (Path d : dirs) {
        SafeFiles.forceDirectory(d);
      }
    }
    return removed;
  }

  /** Whether the entry of {@code id} is a readable entry of a revision retention removed. */
  private static boolean removedByRetention(CommandIndex index, String id, long keptBelow) {
    if (keptBelow <= 1) {
      return false;
    }
    try {
      CommandIndex.Entry entry = index.find(id);
      return entry != null && entry.revision() < keptBelow;
    } catch (dev.ledger.core.LedgerException e) {
      return false; // damaged: not an entry anything can use
    }
  }

  /** The bytes of {@code file}; null if it is absent or too large to be what we write. */
  private static byte[] existing(Path file, long maxBytes) throws IOException {
    try {
      return SafeFiles.readBounded(file, maxBytes);
    } catch (SafeFiles.FileTooLargeException e) {
      return null;
    } catch (NoSuchFileException e) {
      return null;
    }
  }
}
