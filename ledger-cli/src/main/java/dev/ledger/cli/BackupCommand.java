package dev.ledger.cli;

import dev.ledger.artifacts.ArtifactBackupResult;
import dev.ledger.artifacts.fs.FileArtifactStore;
import dev.ledger.core.BackupResult;
import dev.ledger.core.fs.FileLedgerStore;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ledger backup DIR TARGET}: an online copy of a store, ledgers then artifacts. */
@Command(name = "backup", mixinStandardHelpOptions = true,
    description = {"Copy the store in DIR to TARGET while other processes keep writing it: "
        + "every ledger whole at one revision (FileLedgerStore.backup), then, when DIR keeps "
        + "artifacts, the artifact store into TARGET/artifacts (FileArtifactStore.backup), "
        + "so that every attempt a copied ledger names has its snapshot in the copy.",
        "TARGET must not hold a store. A backup that is interrupted leaves no store.json (or "
        + "no artifacts directory) in TARGET: it never opens as a store. 'ledger verify "
        + "TARGET --artifacts' checks the copy.",
        "Read-only on DIR: creates, locks and changes nothing there."})
final class BackupCommand implements Callable<Integer>, StoreCommand {
  @Spec
  CommandSpec spec;

  @Parameters(index = "0", paramLabel = "DIR", description = "The store directory.")
  Path dir;

  @Parameters(index = "1", paramLabel = "TARGET", description = "Where the copy goes.")
  Path target;

  @Override
  public Path dir() {
    return dir;
  }

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    BackupResult ledgers;
    try (FileLedgerStore store = Stores.ledgersReadOnly(dir)) {
      ledgers = store.backup(target);
    }
    out.println("backed up " + ledgers.revisions().size() + " ledgers to " + target);
    if (Files.isDirectory(dir.resolve("artifacts"))) {
      try (FileArtifactStore artifacts = Stores.artifactsReadOnly(dir)) {
        ArtifactBackupResult copied = artifacts.backup(target);
        out.println("backed up " + copied.snapshots() + " snapshots and " + copied.blobs()
            + " blobs (" + copied.bytes() + " bytes) to " + target.resolve("artifacts"));
      }
    }
    out.flush();
    return ExitCodes.OK;
  }
}
