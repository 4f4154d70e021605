package dev.ledger.cli;

import dev.ledger.artifacts.CleanupMode;
import dev.ledger.artifacts.OrphanCleanup;
import dev.ledger.artifacts.fs.FileArtifactStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ledger orphans DIR ROOT --known FILE [--min-age D] [--dry-run]}. */
@Command(name = "orphans", mixinStandardHelpOptions = true,
    description = {"Remove the snapshots of root ROOT in DIR/artifacts whose attempt is not "
        + "listed in FILE and that were frozen at least --min-age ago "
        + "(ArtifactStore.cleanupOrphans). Prints each snapshot removed, those kept as too "
        + "young, and a summary.",
        "--dry-run decides exactly as a real run would, under the store lock, and removes "
        + "nothing; like the real run it needs a writable store. Exit 1 (nothing removed) if "
        + "a snapshot of the root is damaged."})
final class OrphansCommand implements Callable<Integer>, StoreCommand {
  @Spec
  CommandSpec spec;

  @Parameters(index = "0", paramLabel = "DIR", description = "The store directory.")
  Path dir;

  @Override
  public Path dir() {
    return dir;
  }

  @Parameters(index = "1", paramLabel = "ROOT", description = "The root whose snapshots to "
      + "clean.")
  String root;

  @Option(names = "--known", paramLabel = "FILE", required = true,
      description = "The attempt ids still known, one per line ('#' starts a comment, blank "
          + "lines are skipped); '-' reads standard input. Their snapshots stay.")
  String known;

  @Option(names = "--min-age", paramLabel = "D", converter = DurationConverter.class,
      defaultValue = "1h", description = "Keep orphans frozen less than D ago (default: "
          + "${DEFAULT-VALUE}): 90s, 15m, 12h, 7d or ISO-8601.")
  Duration minAge;

  @Option(names = "--dry-run", description = "Report what would be removed; remove nothing.")
  boolean dryRun;

  @Override
  public Integer call() throws IOException {
    Set<String> attempts = readKnown();
    PrintWriter out = spec.commandLine().getOut();
    try (FileArtifactStore store = Stores.artifactsWritable(dir)) {
      OrphanCleanup result = store.cleanupOrphans(root, attempts, minAge,
          dryRun ? CleanupMode.DRY_RUN : CleanupMode.DELETE);
      for (String id : result.removed()) {
        out.println((dryRun ? "would remove " : "removed ") + id);
      }
      for (String id : result.tooYoung()) {
        out.println("kept (too young) " + id);
      }
      out.println((dryRun ? "dry run: would remove " : "removed ") + result.removed().size()
          + " orphan snapshots of root '" + root + "'; kept " + result.tooYoung().size()
          + " younger than " + minAge);
    }
    out.flush();
    return ExitCodes.OK;
  }

  private Set<String> readKnown() throws IOException {
    Set<String> attempts = new LinkedHashSet<>();
    try (BufferedReader lines = known.equals("-")
        ? new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
        : Files.newBufferedReader(Path.of(known), StandardCharsets.UTF_8)) {
      String line;
      while ((line = lines.readLine()) != null) {
        int comment = line.indexOf('#');
        String id = (comment >= 0 ? line.substring(0, comment) : line).strip();
        if (!id.isEmpty()) {
          attempts.add(id);
        }
      }
    }
    return attempts;
  }
}
