package dev.ledger.registry;

import com.google.common.base.Preconditions;
import java.nio.file.Path;
import java.util.List;

/**
 * How a {@link RunRegistry} is kept.
 *
 * @param partition the partition (one ledger) that holds the registry; a valid root id
 * @param workspaceRoots directories that workspaces must lie under (after resolving the
 *     path); empty allows any directory; unmodifiable
 */
public record RegistryOptions(String partition, List<Path> workspaceRoots) {
  /** The default partition name. */
  public static final String DEFAULT_PARTITION = "run-registry";

  /**
   * Checks and copies.
   *
   * @param partition the partition id
   * @param workspaceRoots the allowed roots
   * @throws NullPointerException if an argument or root is null
   * @throws IllegalArgumentException if the partition is empty
   */
  public RegistryOptions {
    Preconditions.checkNotNull(partition, "partition");
    Preconditions.checkArgument(!partition.isEmpty(), "partition is empty");
    workspaceRoots = List.copyOf(workspaceRoots);
  }

  /**
   * Partition {@value #DEFAULT_PARTITION}, workspaces anywhere.
   *
   * @return the defaults
   */
  public static RegistryOptions defaults() {
    return new RegistryOptions(DEFAULT_PARTITION, List.of());
  }

  /**
   * These options with another partition.
   *
   * @param value the partition id
   * @return the new options
   * @throws IllegalArgumentException if the value is empty
   */
  public RegistryOptions withPartition(String value) {
    return new RegistryOptions(value, workspaceRoots);
  }

  /**
   * These options with workspace roots: a workspace must lie under one of them.
   *
   * @param value the roots
   * @return the new options
   * @throws NullPointerException if a root is null
   */
  public RegistryOptions withWorkspaceRoots(List<Path> value) {
    return new RegistryOptions(partition, value);
  }
}
