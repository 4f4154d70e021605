package dev.ledger.examples.readme;

import dev.ledger.core.ImportResult;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.fs.FileLedgerStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** The README's export-and-import snippet, compiled here and run by its test. */
public final class ExportImport {
  private ExportImport() {}

  /**
   * Exports ledger {@code run-1} of the store in {@code from} to {@code file}, then imports it
   * into the store in {@code to}.
   *
   * @param from a store directory holding a ledger {@code run-1}
   * @param file where the export is written
   * @param to a store directory without a ledger {@code run-1}
   * @throws IOException if the export file cannot be written or read
   */
  public static void copy(Path from, Path file, Path to) throws IOException {
    // README:begin export
    try (FileLedgerStore source = FileLedgerStore.openReadOnly(from);
        OutputStream out = Files.newOutputStream(file)) {
      long revisions = source.export("run-1", out); // no lock: writers go on
      System.out.println("exported run-1 up to revision " + revisions);
    }
    try (LedgerStore target = FileLedgerStore.open(to);
        InputStream in = Files.newInputStream(file)) {
      ImportResult imported = target.importLedger(in); // whole input checked first
      System.out.println("imported " + imported.rootId() + " at revision " + imported.revision());
    }
    // README:end
  }
}
