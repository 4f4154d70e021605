package dev.ledger.artifacts;

/**
 * Whether a cleanup ({@link ArtifactStore#cleanupOrphans}, {@link ArtifactStore#collectGarbage})
 * deletes what it finds or only reports it. Both modes make the same decisions under the same
 * lock, so a dry run reports exactly what a deleting run at that moment would remove.
 */
public enum CleanupMode {
  /** Report what would be removed; change nothing. */
  DRY_RUN,

  /** Remove what is found, and report it. */
  DELETE
}
