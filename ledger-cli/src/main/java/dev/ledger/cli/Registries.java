package dev.ledger.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.registry.RegistryOptions;
import dev.ledger.registry.RunRecord;
import dev.ledger.registry.RunRegistry;
import dev.ledger.registry.collections.CollectionRunRegistry;
import java.time.Instant;

/** How {@code runs} and {@code lineages} open a run registry and print its runs. */
final class Registries {
  private Registries() {}

  /**
   * The run registry kept in {@code partition} of a read-only store.
   *
   * @param store the store, opened read-only
   * @param partition the registry's partition
   * @return the registry, for reads only
   * @throws Failures.DataException if the store has no such partition
   */
  static RunRegistry readOnly(FileLedgerStore store, String partition) {
    if (!store.exists(partition)) {
      throw new Failures.DataException("no run registry in " + store.base() + ": partition '"
          + partition + "' does not exist (--partition names another)");
    }
    return CollectionRunRegistry.on(store, RegistryOptions.defaults().withPartition(partition));
  }

  /**
   * A run as one JSON object: every field of {@link RunRecord}, times as ISO-8601 strings,
   * the status by its wire name, absent values as null.
   *
   * @param run the run
   * @return the object
   */
  static ObjectNode json(RunRecord run) {
    ObjectNode node = Json.MAPPER.createObjectNode();
    node.put("id", run.id());
    node.put("workspaceId", run.workspaceId());
    node.put("workspaceDir", run.workspaceDir());
    node.put("externalRunId", run.externalRunId());
    node.put("firstRunId", run.firstRunId());
    node.put("attemptNumber", run.attemptNumber());
    node.put("binding", run.binding());
    node.put("pipeline", run.pipeline());
    node.put("workflow", run.workflow());
    node.put("status", run.status().wireName());
    node.put("revision", run.revision());
    node.put("planChecksum", run.planChecksum());
    node.set("request", run.request());
    node.set("commandArgv", Json.MAPPER.valueToTree(run.commandArgv()));
    node.put("runRelativePath", run.runRelativePath());
    node.put("approvedPlanRelativePath", run.approvedPlanRelativePath());
    node.put("launchLogRelativePath", run.launchLogRelativePath());
    if (run.owner() == null) {
      node.putNull("owner");
    } else {
      ObjectNode owner = node.putObject("owner");
      owner.put("implementation", run.owner().implementation());
      owner.put("instanceId", run.owner().instanceId());
      owner.put("targetId", run.owner().targetId());
    }
    node.put("pid", run.pid());
    node.put("startedAt", text(run.startedAt()));
    node.put("completedAt", text(run.completedAt()));
    node.put("returnCode", run.returnCode());
    node.put("failureSummary", run.failureSummary());
    node.put("cancelRequestedAt", text(run.cancelRequestedAt()));
    node.put("createdAt", text(run.createdAt()));
    node.put("updatedAt", text(run.updatedAt()));
    return node;
  }

  private static String text(Instant instant) {
    return instant == null ? null : instant.toString();
  }

  /** The header of the runs table. */
  static final String HEADER = String.format("%-24s %-7s %-16s %8s %-24s %-16s %-16s %s",
      "UPDATED", "ATTEMPT", "STATUS", "REVISION", "EXTERNAL RUN ID", "WORKSPACE", "PIPELINE",
      "REGISTRY ID");

  /**
   * A run as one line of the runs table.
   *
   * @param run the run
   * @return the line, columns as {@link #HEADER}
   */
  static String line(RunRecord run) {
    return String.format("%-24s %-7d %-16s %8d %-24s %-16s %-16s %s", run.updatedAt(),
        run.attemptNumber(), run.status().wireName(), run.revision(), run.externalRunId(),
        run.workspaceId(), run.pipeline().isEmpty() ? "-" : run.pipeline(), run.id());
  }
}
