package dev.ledger.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.registry.Lineage;
import dev.ledger.registry.RegistryOptions;
import dev.ledger.registry.RunRecord;
import dev.ledger.registry.RunRegistry;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ledger lineages DIR [--limit N] [--attempts N] [--json]}: recent lineages. */
@Command(name = "lineages", mixinStandardHelpOptions = true,
    description = {"List the lineages of the run registry kept in DIR (attempts that share "
        + "a first run), the most recently active first: a line per lineage with its first "
        + "run id and last update, then its newest attempts in attempt order, as 'runs' "
        + "prints them.",
        "Read-only: creates, locks and changes nothing."})
final class LineagesCommand implements Callable<Integer>, StoreCommand {
  @Spec
  CommandSpec spec;

  @Parameters(index = "0", paramLabel = "DIR", description = "The store directory.")
  Path dir;

  @Override
  public Path dir() {
    return dir;
  }

  @Option(names = "--limit", paramLabel = "N", defaultValue = "10",
      description = "At most N lineages, 1 to " + RunRegistry.MAX_LINEAGES
          + " (default: ${DEFAULT-VALUE}).")
  int limit;

  @Option(names = "--attempts", paramLabel = "N", defaultValue = "5",
      description = "At most the N newest attempts of each, 1 to "
          + RunRegistry.MAX_ATTEMPTS_PER_LINEAGE + " (default: ${DEFAULT-VALUE}).")
  int attempts;

  @Option(names = "--json", description = "JSON Lines: one object per lineage, "
      + "{firstRunId, lastUpdatedAt, attempts: [runs as 'runs --json' prints them]}.")
  boolean json;

  @Option(names = "--partition", paramLabel = "ID",
      defaultValue = RegistryOptions.DEFAULT_PARTITION,
      description = "The partition (ledger) that holds the registry (default: "
          + "${DEFAULT-VALUE}).")
  String partition;

  @Override
  public Integer call() {
    if (limit < 1 || limit > RunRegistry.MAX_LINEAGES) {
      throw new Failures.UsageException("--limit must be 1 to " + RunRegistry.MAX_LINEAGES
          + ": " + limit);
    }
    if (attempts < 1 || attempts > RunRegistry.MAX_ATTEMPTS_PER_LINEAGE) {
      throw new Failures.UsageException("--attempts must be 1 to "
          + RunRegistry.MAX_ATTEMPTS_PER_LINEAGE + ": " + attempts);
    }
    PrintWriter out = spec.commandLine().getOut();
    try (FileLedgerStore store = Stores.ledgersReadOnly(dir)) {
      List<Lineage> lineages = Registries.readOnly(store, partition)
          .listRecentLineages(limit, attempts);
      for (Lineage lineage : lineages) {
        if (json) {
          ObjectNode node = Json.MAPPER.createObjectNode();
          node.put("firstRunId", lineage.firstRunId());
          node.put("lastUpdatedAt", lineage.lastUpdatedAt().toString());
          ArrayNode runs = node.putArray("attempts");
          lineage.attempts().forEach(run -> runs.add(Registries.json(run)));
          out.println(Json.line(node));
        } else {
          out.println("lineage " + lineage.firstRunId() + ", last update "
              + lineage.lastUpdatedAt() + ", " + lineage.attempts().size()
              + (lineage.attempts().size() == 1 ? " attempt shown" : " attempts shown"));
          for (RunRecord run : lineage.attempts()) {
            out.println("  " + Registries.line(run));
          }
        }
      }
      out.flush();
    }
    return ExitCodes.OK;
  }
}
