package dev.ledger.examples.readme;

// README:begin registry
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.core.lifecycle.InvalidTransitionException;
import dev.ledger.registry.Lineage;
import dev.ledger.registry.NewRun;
import dev.ledger.registry.RunEvent;
import dev.ledger.registry.RunFilters;
import dev.ledger.registry.RunRecord;
import dev.ledger.registry.RunRegistry;
import dev.ledger.registry.RunStatus;
import dev.ledger.registry.StaleRunRevisionException;
import dev.ledger.registry.TransitionDetails;
import dev.ledger.registry.collections.CollectionRunRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/** A workspace, a run that fails, a second attempt in its lineage, and the queries. */
public class RegistryQuickStart {
  /** Takes a directory, or makes a new temporary one. */
  public static void main(String[] args) throws Exception {
    Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("registry");
    Path workspace = Files.createDirectories(dir.resolve("workspace"));
    try (FileLedgerStore store = FileLedgerStore.open(dir.resolve("store"))) {
      RunRegistry runs = CollectionRunRegistry.on(store);
      runs.registerWorkspace("ws", workspace);
      RunRecord run = runs.allocateRun(NewRun.builder("ws", "nightly-1").pipeline("nightly")
          .commandArgv(List.of("make", "all")).build());
      // Each move names the revision it read; a stale one is refused.
      run = runs.transitionRun(run.id(), RunStatus.RUNNING, run.revision(),
          TransitionDetails.none().withPid(4242));
      run = runs.transitionRun(run.id(), RunStatus.FAILED, run.revision(),
          TransitionDetails.none().withReturnCode(2).withFailureSummary("disk full"));
      RunRecord retry = runs.allocateRun(NewRun.builder("ws", "nightly-2").pipeline("nightly")
          .attemptOf("nightly-1", 2).build());
      try {
        runs.transitionRun(run.id(), RunStatus.RUNNING, run.revision(), TransitionDetails.none());
      } catch (InvalidTransitionException e) {
        System.out.println("refused " + e.from() + " -> " + e.to() + ", allowed " + e.allowed());
      }
      try {
        runs.transitionRun(retry.id(), RunStatus.RUNNING, 7, TransitionDetails.none());
      } catch (StaleRunRevisionException e) {
        System.out.println("stale: expected " + e.expected() + ", actual " + e.actual());
      }
      for (RunEvent e : runs.runEvents(run.id())) {
        System.out.println(e.sequence() + " " + e.type() + " "
            + (e.from() == null ? "" : e.from().wireName() + " -> ") + e.to().wireName() + " "
            + e.details());
      }
      for (RunRecord r : runs.listRuns(RunFilters.any().withStatuses(
          Set.of(RunStatus.STARTING, RunStatus.RUNNING)), 50)) {
        System.out.println("active: " + r.externalRunId() + " " + r.status().wireName());
      }
      for (Lineage lineage : runs.listRecentLineages(20, 6)) {
        System.out.println("lineage " + lineage.firstRunId() + ": " + lineage.attempts().stream()
            .map(r -> r.attemptNumber() + "=" + r.status().wireName()).toList());
      }
      RunRecord failed = runs.run(run.id()).orElseThrow();
      System.out.println(failed.externalRunId() + " revision " + failed.revision() + ", exit "
          + failed.returnCode() + ", " + failed.failureSummary() + ", pid " + failed.pid());
    }
  }
}
// README:end
