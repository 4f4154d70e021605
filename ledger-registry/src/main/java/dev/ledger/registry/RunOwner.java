package dev.ledger.registry;

import com.google.common.base.Preconditions;

/**
 * The daemon that launched and owns a run's process: which implementation, which instance of
 * it, on which target. {@link RunRegistry#hasActiveRuns} asks by implementation;
 * {@link RunRegistry#listDaemonOwnedActiveRuns} selects runs whose owner has an instance id
 * and runs on {@value #LOCAL_TARGET}.
 *
 * @param implementation the daemon's implementation name, not empty
 * @param instanceId the daemon instance's id, or empty when unknown
 * @param targetId where the job runs ({@value #LOCAL_TARGET} for this host)
 */
public record RunOwner(String implementation, String instanceId, String targetId) {
  /** The target id of jobs on this host. */
  public static final String LOCAL_TARGET = "local";

  /**
   * Checks the fields.
   *
   * @param implementation the implementation name
   * @param instanceId the instance id, may be empty
   * @param targetId the target id
   * @throws NullPointerException if a field is null
   * @throws IllegalArgumentException if {@code implementation} or {@code targetId} is empty
   */
  public RunOwner {
    Preconditions.checkNotNull(implementation, "implementation");
    Preconditions.checkNotNull(instanceId, "instanceId");
    Preconditions.checkNotNull(targetId, "targetId");
    Preconditions.checkArgument(!implementation.isEmpty(), "implementation is empty");
    Preconditions.checkArgument(!targetId.isEmpty(), "targetId is empty");
  }

  /**
   * An owner on this host.
   *
   * @param implementation the implementation name
   * @param instanceId the instance id
   * @return the owner with target {@value #LOCAL_TARGET}
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code implementation} is empty
   */
  public static RunOwner local(String implementation, String instanceId) {
    return new RunOwner(implementation, instanceId, LOCAL_TARGET);
  }
}
