package dev.ledger.cli;

import dev.ledger.core.RepairResult;
import dev.ledger.core.fs.FileLedgerStore;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ledger repair DIR ROOT}: rebuilds a ledger's checkpoint and command index. */
@Command(name = "repair", mixinStandardHelpOptions = true,
    description = {"Rebuild the checkpoint (state.json) and command index of ledger ROOT from "
        + "its journal (FileLedgerStore.repair), under the ledger's writer lock: for a ledger "
        + "that verify found with a damaged or missing checkpoint or command index. Files that "
        + "already hold the rebuilt content are left alone.",
        "Exit 1 (and nothing changed) when the journal itself is damaged before its tail."})
final class RepairCommand implements Callable<Integer>, StoreCommand {
  @Spec
  CommandSpec spec;

  @Parameters(index = "0", paramLabel = "DIR", description = "The store directory.")
  Path dir;

  @Override
  public Path dir() {
    return dir;
  }

  @Parameters(index = "1", paramLabel = "ROOT", description = "The ledger's root id.")
  String root;

  @Override
  public Integer call() {
    try (FileLedgerStore store = Stores.ledgersWritable(dir)) {
      RepairResult result = store.repair(root);
      spec.commandLine().getOut().println(result.changed()
          ? "repaired ledger '" + root + "' at revision " + result.revision() + ": checkpoint "
              + (result.checkpointRewritten() ? "rewritten" : "unchanged") + ", "
              + result.commandEntriesWritten() + " command entries written, "
              + result.commandEntriesRemoved() + " removed"
          : "ledger '" + root + "' at revision " + result.revision()
              + ": nothing to repair");
      spec.commandLine().getOut().flush();
    }
    return ExitCodes.OK;
  }
}
