package dev.ledger.cli;

import dev.ledger.core.ImportResult;
import dev.ledger.core.StoreNotFoundException;
import dev.ledger.core.fs.FileLedgerStore;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ledger import DIR FILE}: rebuilds a ledger from an export. */
@Command(name = "import", mixinStandardHelpOptions = true,
    description = {"Rebuild in the store in DIR the ledger that FILE holds as an export "
        + "('ledger export'), under the root id the export names: same revisions, times, "
        + "events and commands (LedgerStore.importLedger).",
        "The whole export is checked before the ledger appears; a refused import changes "
        + "nothing. Exit 1 if the store already holds that ledger or the export is invalid."})
final class ImportCommand implements Callable<Integer>, StoreCommand {
  @Spec
  CommandSpec spec;

  @Parameters(index = "0", paramLabel = "DIR", description = "The store directory.")
  Path dir;

  @Override
  public Path dir() {
    return dir;
  }

  @Parameters(index = "1", paramLabel = "FILE",
      description = "The export; '-' reads standard input.")
  String file;

  @Option(names = "--create",
      description = "Create the store in DIR if it is not one yet (by default a directory "
          + "that is no store is refused).")
  boolean create;

  @Override
  public Integer call() throws IOException {
    ImportResult result;
    try (InputStream in = file.equals("-") ? System.in
            : new BufferedInputStream(Files.newInputStream(Path.of(file)), 1 << 16);
        FileLedgerStore store = create ? FileLedgerStore.open(dir) : existing()) {
      result = store.importLedger(in);
    }
    spec.commandLine().getOut().println("imported ledger '" + result.rootId() + "': "
        + result.revision() + " revisions, " + result.events() + " events, "
        + result.commands() + " commands");
    spec.commandLine().getOut().flush();
    return ExitCodes.OK;
  }

  private FileLedgerStore existing() {
    try {
      return Stores.ledgersWritable(dir);
    } catch (StoreNotFoundException e) {
      throw new StoreNotFoundException(dir.toAbsolutePath(), Failures.oneLine(e.getMessage())
          .replaceFirst("^.*?: ", "").replace(" (FileLedgerStore.open creates a store)", "")
          + "; pass --create to make one");
    }
  }
}
