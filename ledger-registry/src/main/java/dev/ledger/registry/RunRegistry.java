package dev.ledger.registry;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A registry of runs of long external jobs: workspaces they live in, runs with a guarded
 * lifecycle ({@link RunStatus#lifecycle()}) and a revision guard, one event per transition,
 * and attempts grouped into lineages by the external id of their first run. The
 * implementation on ledger-collections is
 * {@link dev.ledger.registry.collections.CollectionRunRegistry}.
 *
 * <p><b>Writes</b> are atomic and durable as the underlying store's commits are: a refused
 * write (any {@link RegistryException},
 * {@link dev.ledger.core.lifecycle.InvalidTransitionException},
 * {@link dev.ledger.core.lifecycle.UnknownStateException}) writes nothing. Several processes
 * may share one registry; each write is checked against the latest committed state.
 *
 * <p><b>Reads</b> see the latest committed state. Times are the store's clock, truncated to
 * milliseconds. Thread-safe.
 */
public interface RunRegistry {
  /** The fewest runs {@link #listRuns} returns per call when that many match. */
  int MIN_LIST_LIMIT = 1;
  /** The most runs {@link #listRuns} returns per call; larger limits are clamped to it. */
  int MAX_LIST_LIMIT = 200;
  /** The most lineages {@link #listRecentLineages} returns; larger bounds are clamped. */
  int MAX_LINEAGES = 50;
  /** The most attempts per lineage {@link #listRecentLineages} returns. */
  int MAX_ATTEMPTS_PER_LINEAGE = 20;
  /** Failure summaries are stored truncated to this many characters. */
  int FAILURE_SUMMARY_LIMIT = 1000;
  /** The largest {@link TransitionDetails#extra()}, as compact UTF-8 JSON. */
  int MAX_DETAILS_BYTES = 8 * 1024;
  /** The largest launch request of a {@link NewRun}, as compact UTF-8 JSON. */
  int MAX_REQUEST_BYTES = 256 * 1024;

  /**
   * Registers a workspace, or registers it again. The path is made canonical (absolute, real);
   * canonical paths are unique across workspaces. Registering the same id with the same path
   * again only updates its {@code lastSeenAt}.
   *
   * @param workspaceId the workspace id, 1 to 200 characters
   * @param path an existing directory; neither it nor a directory on its way may be a
   *     symbolic link
   * @return the workspace as registered
   * @throws WorkspaceConflictException if another workspace id holds the canonical path
   * @throws WorkspacePathException if the path does not exist, is not a directory, is or
   *     passes through a symbolic link, or lies outside the registry's workspace roots
   * @throws IllegalArgumentException if the id is empty or too long
   * @throws NullPointerException if an argument is null
   * @throws dev.ledger.core.LedgerException for the store's own failures
   */
  Workspace registerWorkspace(String workspaceId, Path path);

  /**
   * A registered workspace.
   *
   * @param workspaceId the workspace id
   * @return the workspace, or empty
   * @throws NullPointerException if the id is null
   */
  Optional<Workspace> workspace(String workspaceId);

  /**
   * Allocates a run: status {@link RunStatus#STARTING}, revision 1, a new random registry id,
   * and its {@value RunEvent#RUN_ALLOCATED} event at sequence 1. Its first run id is
   * {@link NewRun#firstRunId()}, or its own external id when that is null.
   *
   * @param run the run
   * @return the run as registered
   * @throws DuplicateRunException if the external run id is already registered
   * @throws UnknownWorkspaceException if the workspace is not registered
   * @throws WorkspacePathException if a relative path is absolute, leaves the workspace, or
   *     passes through a symbolic link that exists
   * @throws RunDataTooLargeException if the request exceeds {@value #MAX_REQUEST_BYTES} bytes
   * @throws NullPointerException if {@code run} is null
   * @throws dev.ledger.core.LedgerException for the store's own failures
   */
  RunRecord allocateRun(NewRun run);

  /**
   * A run by registry id.
   *
   * @param registryRunId the registry id
   * @return the run, or empty
   * @throws NullPointerException if the id is null
   */
  Optional<RunRecord> run(String registryRunId);

  /**
   * A run by the caller's external run id.
   *
   * @param externalRunId the external run id
   * @return the run, or empty
   * @throws NullPointerException if the id is null
   */
  Optional<RunRecord> runByExternalId(String externalRunId);

  /**
   * A run by its run directory within a workspace.
   *
   * @param workspaceId the workspace id
   * @param runRelativePath the run directory relative to the workspace, as allocated
   * @return the run, or empty (the oldest allocated if several share the directory)
   * @throws NullPointerException if an argument is null
   */
  Optional<RunRecord> runByDirectory(String workspaceId, String runRelativePath);

  /**
   * The first run of a lineage: the run whose external id and first run id are both
   * {@code firstRunId}, at attempt 1.
   *
   * @param firstRunId the lineage's first run id
   * @return the run, or empty
   * @throws NullPointerException if the id is null
   */
  Optional<RunRecord> firstRun(String firstRunId);

  /**
   * The attempt of a lineage with the highest attempt number.
   *
   * @param firstRunId the lineage's first run id
   * @return the run, or empty when the lineage has none
   * @throws NullPointerException if the id is null
   */
  Optional<RunRecord> latestAttempt(String firstRunId);

  /**
   * Runs matching every filter, newest {@code updatedAt} first, ties broken by registry id
   * descending.
   *
   * @param filters the filters
   * @param limit how many to return at most; clamped to [{@value #MIN_LIST_LIMIT},
   *     {@value #MAX_LIST_LIMIT}] (0 or a negative value returns at most one run)
   * @return the runs
   * @throws NullPointerException if {@code filters} is null
   */
  List<RunRecord> listRuns(RunFilters filters, int limit);

  /**
   * The lineages with the newest activity: lineages ordered by the newest {@code updatedAt}
   * of their attempts, descending (ties by first run id descending), each with its newest
   * attempts in ascending attempt order.
   *
   * @param lineages how many lineages at most; clamped to [1, {@value #MAX_LINEAGES}]
   * @param attemptsPerLineage how many attempts per lineage at most; clamped to
   *     [1, {@value #MAX_ATTEMPTS_PER_LINEAGE}]
   * @return the lineages
   */
  List<Lineage> listRecentLineages(int lineages, int attemptsPerLineage);

  /**
   * Whether a run owned by a daemon implementation is not terminal.
   *
   * @param implementation the owner's implementation name
   * @return true if such a run is active
   * @throws NullPointerException if the name is null
   */
  boolean hasActiveRuns(String implementation);

  /**
   * The active runs a daemon owns on this host: not terminal, with an owner whose instance id
   * is not empty and whose target is {@value RunOwner#LOCAL_TARGET}, narrowed by the
   * non-status filters of {@code scope} (its statuses are ignored). Oldest allocation first.
   *
   * @param scope the workspace, binding, pipeline and first run id to narrow to
   * @return the runs
   * @throws NullPointerException if {@code scope} is null
   */
  List<RunRecord> listDaemonOwnedActiveRuns(RunFilters scope);

  /**
   * Sets or clears the process id of an active run, without a transition: the revision,
   * {@code updatedAt} and events stay as they are.
   *
   * @param registryRunId the registry id
   * @param pid the process id, positive, or null to clear it
   * @return the run as stored
   * @throws RunNotFoundException if no run has the id
   * @throws RunNotActiveException if the run is terminal
   * @throws IllegalArgumentException if the pid is not positive
   * @throws NullPointerException if the id is null
   * @throws dev.ledger.core.LedgerException for the store's own failures
   */
  RunRecord setRunPid(String registryRunId, Long pid);

  /**
   * Moves a run through its lifecycle, guarded by its revision. A transition to its current
   * status is a no-op that returns the run unchanged (whatever {@code expectedRevision}
   * says, as the reference does). Otherwise the lifecycle must allow it and the run must be at
   * {@code expectedRevision}; then, in one commit, the status changes, the revision and
   * {@code updatedAt} move, the lifecycle's stamps are set ({@code startedAt} on the first
   * entry to running, {@code completedAt} on a terminal status, {@code cancelRequestedAt} on
   * cancel_requested), the details' non-null fields are stored (the failure summary truncated
   * to {@value #FAILURE_SUMMARY_LIMIT} characters), and a
   * {@value dev.ledger.core.lifecycle.StatusChanged#TYPE} event is recorded whose sequence is
   * the new revision and whose details hold the return code and the extra details.
   *
   * @param registryRunId the registry id
   * @param to the status to enter
   * @param expectedRevision the revision the caller last read
   * @param details what else to record
   * @return the run as stored
   * @throws RunNotFoundException if no run has the id
   * @throws dev.ledger.core.lifecycle.InvalidTransitionException if the lifecycle does not
   *     allow the transition (out of a terminal status included)
   * @throws StaleRunRevisionException if the run is not at {@code expectedRevision}
   * @throws RunDataTooLargeException if the extra details exceed {@value #MAX_DETAILS_BYTES}
   *     bytes
   * @throws NullPointerException if an argument is null
   * @throws dev.ledger.core.LedgerException for the store's own failures
   */
  RunRecord transitionRun(String registryRunId, RunStatus to, long expectedRevision,
      TransitionDetails details);

  /**
   * A run's events, in sequence order.
   *
   * @param registryRunId the registry id
   * @return the events; empty if no run has the id
   * @throws NullPointerException if the id is null
   */
  List<RunEvent> runEvents(String registryRunId);
}
