package dev.ledger.registry;

import com.google.common.base.Preconditions;
import java.nio.file.Path;
import java.time.Instant;

/**
 * A registered workspace: a directory that runs live in, under an id.
 *
 * @param id the workspace id
 * @param canonicalPath its real, absolute path (unique across workspaces)
 * @param displayName its last path element, or the path for a root
 * @param createdAt when it was first registered (store clock, millisecond precision)
 * @param lastSeenAt when it was last registered again (store clock, millisecond precision)
 */
public record Workspace(String id, String canonicalPath, String displayName, Instant createdAt,
    Instant lastSeenAt) {
  /**
   * Checks the fields.
   *
   * @param id the id
   * @param canonicalPath the path
   * @param displayName the display name
   * @param createdAt first registration
   * @param lastSeenAt last registration
   * @throws NullPointerException if a field is null
   */
  public Workspace {
    Preconditions.checkNotNull(id, "id");
    Preconditions.checkNotNull(canonicalPath, "canonicalPath");
    Preconditions.checkNotNull(displayName, "displayName");
    Preconditions.checkNotNull(createdAt, "createdAt");
    Preconditions.checkNotNull(lastSeenAt, "lastSeenAt");
  }

  /**
   * The canonical path as a path.
   *
   * @return the directory
   */
  public Path directory() {
    return Path.of(canonicalPath);
  }
}
