package dev.ledger.cli;

import dev.ledger.artifacts.BlobCollection;
import dev.ledger.artifacts.CleanupMode;
import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.fs.FileArtifactStore;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ledger gc DIR --grace DURATION [--dry-run]}: removes unreferenced blobs. */
@Command(name = "gc", mixinStandardHelpOptions = true,
    description = {"Remove the blobs of DIR/artifacts that no snapshot references and that "
        + "were last put at least DURATION ago (ArtifactStore.collectGarbage). Prints each "
        + "blob removed, then a summary.",
        "--dry-run decides exactly as a real run would, under the store lock, and removes "
        + "nothing; like the real run it needs a writable store. Exit 1 (nothing removed) if "
        + "a snapshot is damaged."})
final class GcCommand implements Callable<Integer>, StoreCommand {
  @Spec
  CommandSpec spec;

  @Parameters(index = "0", paramLabel = "DIR", description = "The store directory.")
  Path dir;

  @Override
  public Path dir() {
    return dir;
  }

  @Option(names = "--grace", paramLabel = "DURATION", required = true,
      converter = DurationConverter.class,
      description = "Keep unreferenced blobs put less than this long ago: 90s, 15m, 12h, 7d "
          + "or ISO-8601 (PT1H30M). Longer than any put-to-freeze gap of your writers.")
  Duration grace;

  @Option(names = "--dry-run", description = "Report what would be removed; remove nothing.")
  boolean dryRun;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    try (FileArtifactStore store = Stores.artifactsWritable(dir)) {
      BlobCollection result = store.collectGarbage(grace,
          dryRun ? CleanupMode.DRY_RUN : CleanupMode.DELETE);
      for (ContentId id : result.removed()) {
        out.println((dryRun ? "would remove " : "removed ") + id);
      }
      out.println((dryRun ? "dry run: would remove " : "removed ") + result.removed().size()
          + " blobs, " + result.bytesRemoved() + " bytes; kept " + result.referenced()
          + " referenced, " + result.withinGrace() + " within the grace period");
    }
    out.flush();
    return ExitCodes.OK;
  }
}
