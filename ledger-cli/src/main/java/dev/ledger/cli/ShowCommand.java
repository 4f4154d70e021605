package dev.ledger.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.LedgerHead;
import dev.ledger.core.LedgerNotFoundException;
import dev.ledger.core.StateMappingException;
import dev.ledger.core.Versioned;
import dev.ledger.core.fs.FileLedgerStore;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ledger show DIR ROOT [--revision N]}: a ledger's state as pretty JSON. */
@Command(name = "show", mixinStandardHelpOptions = true,
    description = {"Print the state of ledger ROOT as indented JSON with its revision and "
        + "commit time: {\"root\", \"revision\", \"committedAt\", \"state\"}.",
        "The latest state is loaded as the library loads it (checkpoint plus the journal "
        + "after it). A past revision (--revision) is the fold of the journal from revision 1 "
        + "up to it, read through the ledger's export, so it costs a read of the journal up "
        + "to that revision.",
        "Read-only: creates, locks and changes nothing."})
final class ShowCommand implements Callable<Integer>, StoreCommand {
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

  @Option(names = "--revision", paramLabel = "N",
      description = "Show the state as of revision N (1 to the latest) instead of the latest.")
  Long revision;

  @Override
  public Integer call() {
    if (revision != null && revision < 1) {
      throw new Failures.UsageException("--revision must be at least 1: " + revision);
    }
    try (FileLedgerStore store = Stores.ledgersReadOnly(dir)) {
      LedgerHead head = store.head(root).orElseThrow(() -> new LedgerNotFoundException(root));
      JsonNode state;
      long shown;
      Instant committedAt;
      if (revision == null) {
        Versioned<JsonNode> latest;
        try {
          latest = store.ledger(root, JsonNode.class).load();
          state = latest.state();
          shown = latest.revision();
          committedAt = latest.updatedAt();
        } catch (StateMappingException e) {
          // Written with a newer state version than a plain tree declares (0): show the
          // stored tree, folded from the journal, rather than refuse.
          ExportFold.Folded folded = ExportFold.fold(store, root, head.revision());
          state = folded.state();
          shown = folded.revision();
          committedAt = folded.committedAt();
        }
      } else {
        if (revision > head.revision()) {
          throw new Failures.DataException("ledger '" + root + "' in " + store.base()
              + " has " + head.revision() + " revisions; there is no revision " + revision);
        }
        ExportFold.Folded folded = ExportFold.fold(store, root, revision);
        state = folded.state();
        shown = folded.revision();
        committedAt = folded.committedAt();
      }
      ObjectNode node = Json.MAPPER.createObjectNode();
      node.put("root", root);
      node.put("revision", shown);
      node.put("committedAt", committedAt.toString());
      node.set("state", state);
      spec.commandLine().getOut().println(Json.pretty(node));
      spec.commandLine().getOut().flush();
    }
    return ExitCodes.OK;
  }
}
