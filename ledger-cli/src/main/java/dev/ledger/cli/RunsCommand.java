package dev.ledger.cli;

import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.core.lifecycle.UnknownStateException;
import dev.ledger.registry.RegistryOptions;
import dev.ledger.registry.RunFilters;
import dev.ledger.registry.RunRecord;
import dev.ledger.registry.RunRegistry;
import dev.ledger.registry.RunStatus;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ledger runs DIR [--status S]... [filters] [--limit N] [--json]}: the run registry. */
@Command(name = "runs", mixinStandardHelpOptions = true,
    description = {"List the runs of the run registry kept in DIR (ledger-registry's "
        + "CollectionRunRegistry on the store), newest update first: update time, attempt, "
        + "status, revision, external run id, workspace, pipeline, registry id.",
        "Read-only: creates, locks and changes nothing."})
final class RunsCommand implements Callable<Integer>, StoreCommand {
  @Spec
  CommandSpec spec;

  @Parameters(index = "0", paramLabel = "DIR", description = "The store directory.")
  Path dir;

  @Override
  public Path dir() {
    return dir;
  }

  @Option(names = {"-s", "--status"}, paramLabel = "S",
      description = "Only runs in status S (starting, running, cancel_requested, canceling, "
          + "completed, failed, canceled, orphaned); repeat for several.")
  List<String> statuses = new ArrayList<>();

  @Option(names = "--workspace", paramLabel = "ID", description = "Only runs of workspace ID.")
  String workspace;

  @Option(names = "--pipeline", paramLabel = "NAME", description = "Only runs of pipeline NAME.")
  String pipeline;

  @Option(names = "--binding", paramLabel = "NAME", description = "Only runs of binding NAME.")
  String binding;

  @Option(names = "--lineage", paramLabel = "FIRST_RUN_ID",
      description = "Only the attempts of the lineage whose first run has this external id.")
  String lineage;

  @Option(names = "--limit", paramLabel = "N", defaultValue = "50",
      description = "Print at most N runs, 1 to " + RunRegistry.MAX_LIST_LIMIT
          + " (default: ${DEFAULT-VALUE}).")
  int limit;

  @Option(names = "--json", description = "JSON Lines: one object per run with every field "
      + "of the registry's RunRecord.")
  boolean json;

  @Option(names = "--partition", paramLabel = "ID",
      defaultValue = RegistryOptions.DEFAULT_PARTITION,
      description = "The partition (ledger) that holds the registry (default: "
          + "${DEFAULT-VALUE}).")
  String partition;

  @Override
  public Integer call() {
    if (limit < 1 || limit > RunRegistry.MAX_LIST_LIMIT) {
      throw new Failures.UsageException("--limit must be 1 to " + RunRegistry.MAX_LIST_LIMIT
          + ": " + limit);
    }
    RunFilters filters = RunFilters.any().withStatuses(statuses(statuses))
        .withWorkspace(workspace).withPipeline(pipeline).withBinding(binding)
        .withFirstRunId(lineage);
    PrintWriter out = spec.commandLine().getOut();
    try (FileLedgerStore store = Stores.ledgersReadOnly(dir)) {
      List<RunRecord> runs = Registries.readOnly(store, partition).listRuns(filters, limit);
      if (!json) {
        out.println(Registries.HEADER);
      }
      for (RunRecord run : runs) {
        out.println(json ? Json.line(Registries.json(run)) : Registries.line(run));
      }
      out.flush();
    }
    return ExitCodes.OK;
  }

  /**
   * Statuses by wire name.
   *
   * @param names the names given
   * @return the statuses
   * @throws Failures.UsageException naming the valid names, for an unknown one
   */
  static Set<RunStatus> statuses(List<String> names) {
    Set<RunStatus> statuses = EnumSet.noneOf(RunStatus.class);
    for (String name : names) {
      try {
        statuses.add(RunStatus.of(name));
      } catch (UnknownStateException e) {
        throw new Failures.UsageException("--status '" + name + "' is no run status; one of "
            + Arrays.stream(RunStatus.values()).map(RunStatus::wireName)
                .collect(Collectors.joining(", ")));
      }
    }
    return statuses;
  }
}
