package dev.ledger.core.fs;

import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.LedgerNotFoundException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.VerifyProgress;
import dev.ledger.core.VerifyReport.Finding;
import dev.ledger.core.VerifyReport.Kind;
import dev.ledger.core.VerifyReport;
import dev.ledger.core.internal.io.Identifiers;
import dev.ledger.core.internal.journal.JournalLine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Verifies a store directory: its marker, then each ledger ({@link LedgerVerifier}), in
 * root id order. Reads only; takes no lock; works on a read-only store and beside writers.
 */
final class StoreVerifier {
  private final Path base;
  private final StoreLimits limits;

  /** A verifier whose reads are bounded by {@code limits}, the store's (see StoreLimits). */
  StoreVerifier(Path base, StoreLimits limits) {
    this.base = base;
    this.limits = limits;
  }

  /** Verifies every ledger, or only {@code onlyRoot} if it is not null. */
  VerifyReport verify(String onlyRoot, Consumer<VerifyProgress> progress) {
    // A writer may have raised the limits since this store opened: bound by the marker now.
    try {
      limits.refresh();
    } catch (dev.ledger.core.LedgerException e) {
      // A marker that cannot be read is reported below, by the same check opening makes.
    }
    List<Finding> findings = new ArrayList<>();
    Path marker = base.resolve("store.json");
    try {
      // The read-only open checks the marker exactly as opening does, and writes nothing.
      FileLedgerStore.openReadOnly(base).close();
    } catch (CorruptLedgerException | dev.ledger.core.UnsupportedFormatException e) {
      findings.add(new Finding(Kind.BAD_STORE_MARKER, null, marker, -1, e.getMessage(), null,
          null));
    } catch (LedgerIOException e) {
      findings.add(new Finding(Kind.BAD_STORE_MARKER, null, marker, -1, e.getMessage()
          + (e.getCause() == null ? "" : ": " + e.getCause()), null, null));
    }
    Path ledgersDir = base.resolve("ledgers");
    List<String> roots = new ArrayList<>();
    List<Path> dirs = new ArrayList<>();
    if (onlyRoot != null) {
      Path dir = ledgersDir.resolve(Identifiers.toDirectoryName("root id", onlyRoot));
      if (!holdsLedger(dir)) {
        throw new LedgerNotFoundException(onlyRoot);
      }
      roots.add(onlyRoot);
      dirs.add(dir);
    } else {
      try {
        for (Path dir : LedgerVerifier.sorted(ledgersDir)) {
          String id = Identifiers.fromDirectoryName("root id", dir.getFileName().toString());
          if (id == null || !Files.isDirectory(dir)) {
            findings.add(new Finding(Kind.UNKNOWN_FILE, null, dir, -1,
                "not a ledger directory", null, null));
          } else if (holdsLedger(dir)) {
            roots.add(id);
            dirs.add(dir);
          }
        }
      } catch (IOException e) {
        throw new LedgerIOException("listing ledgers", ledgersDir, e);
      }
    }
    long segments = 0;
    long records = 0;
    long events = 0;
    long bytes = 0;
    for (int i = 0; i < roots.size(); i++) {
      LedgerVerifier v = verifier(roots.get(i), dirs.get(i), progress, i, roots.size());
      v.verifyAll();
      for (int again = 0; again < 3 && v.retentionMoved(); again++) {
        // A retention removed segments while they were read: verify the new journal.
        v = verifier(roots.get(i), dirs.get(i), progress, i, roots.size());
        v.verifyAll();
      }
      findings.addAll(v.findings);
      segments += v.segments;
      records += v.records;
      events += v.events;
      bytes += v.bytes;
    }
    return new VerifyReport(roots.size(), segments, records, events, bytes, findings);
  }

  LedgerVerifier verifier(String root, Path dir, Consumer<VerifyProgress> progress, int index,
      int count) {
    return new LedgerVerifier(root, dir, limits.maxLine(), limits.maxCheckpointBytes(),
        progress, index, count);
  }

  /** The largest {@code state.json} read, as the ledgers read it. */
  long maxCheckpointBytes() {
    return limits.maxCheckpointBytes();
  }

  /** Whether {@code dir} holds anything of a committed ledger. */
  static boolean holdsLedger(Path dir) {
    return Files.isDirectory(dir) && (Files.isDirectory(dir.resolve("journal"))
        && hasEntries(dir.resolve("journal")) || Files.exists(dir.resolve("state.json"))
        || Files.isDirectory(dir.resolve("commands")));
  }

  private static boolean hasEntries(Path dir) {
    try {
      return !LedgerVerifier.sorted(dir).isEmpty();
    } catch (IOException e) {
      throw new LedgerIOException("listing", dir, e);
    }
  }
}
