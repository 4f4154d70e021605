package dev.ledger.registry;

import com.google.common.base.Preconditions;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * Which runs {@link RunRegistry#listRuns} returns: every given filter must hold (null or an
 * empty status set means "any").
 *
 * @param workspaceId the workspace id, or null
 * @param statuses the statuses, or empty for any; unmodifiable
 * @param binding the binding, or null
 * @param pipeline the pipeline, or null
 * @param firstRunId the lineage's first run id, or null
 */
public record RunFilters(String workspaceId, Set<RunStatus> statuses, String binding,
    String pipeline, String firstRunId) {
  /**
   * Copies the status set.
   *
   * @param workspaceId the workspace id, or null
   * @param statuses the statuses, or null or empty for any
   * @param binding the binding, or null
   * @param pipeline the pipeline, or null
   * @param firstRunId the first run id, or null
   * @throws NullPointerException if a status is null
   */
  public RunFilters {
    EnumSet<RunStatus> copy = EnumSet.noneOf(RunStatus.class);
    if (statuses != null) {
      for (RunStatus status : statuses) {
        copy.add(Preconditions.checkNotNull(status, "status"));
      }
    }
    statuses = Collections.unmodifiableSet(copy);
  }

  /**
   * No filter: every run.
   *
   * @return the empty filters
   */
  public static RunFilters any() {
    return new RunFilters(null, Set.of(), null, null, null);
  }

  /**
   * These filters in a workspace.
   *
   * @param value the workspace id, or null for any
   * @return the new filters
   */
  public RunFilters withWorkspace(String value) {
    return new RunFilters(value, statuses, binding, pipeline, firstRunId);
  }

  /**
   * These filters with a status set.
   *
   * @param value the statuses, or empty for any
   * @return the new filters
   * @throws NullPointerException if a status is null
   */
  public RunFilters withStatuses(Set<RunStatus> value) {
    return new RunFilters(workspaceId, value, binding, pipeline, firstRunId);
  }

  /**
   * These filters with a binding.
   *
   * @param value the binding, or null for any
   * @return the new filters
   */
  public RunFilters withBinding(String value) {
    return new RunFilters(workspaceId, statuses, value, pipeline, firstRunId);
  }

  /**
   * These filters with a pipeline.
   *
   * @param value the pipeline, or null for any
   * @return the new filters
   */
  public RunFilters withPipeline(String value) {
    return new RunFilters(workspaceId, statuses, binding, value, firstRunId);
  }

  /**
   * These filters in one lineage.
   *
   * @param value the lineage's first run id, or null for any
   * @return the new filters
   */
  public RunFilters withFirstRunId(String value) {
    return new RunFilters(workspaceId, statuses, binding, pipeline, value);
  }
}
