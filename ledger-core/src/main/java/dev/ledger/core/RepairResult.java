package dev.ledger.core;

/**
 * What a {@code repair(rootId)} rewrote. Every file it names was written by temp file,
 * {@code force}, atomic rename and directory {@code force}; files that already held the
 * rebuilt content were left alone.
 *
 * @param rootId the ledger
 * @param revision the last revision of the journal, which {@code state.json} now holds
 * @param checkpointRewritten whether {@code state.json} was missing or different and was
 *     written
 * @param commandEntriesWritten command index entries that were missing or different and
 *     were written
 * @param commandEntriesRemoved command index entries naming no command of the journal, removed
 */
public record RepairResult(String rootId, long revision, boolean checkpointRewritten,
    int commandEntriesWritten, int commandEntriesRemoved) {
  /**
   * Whether the repair changed anything.
   *
   * @return true if a file was written or removed
   */
  public boolean changed() {
    return checkpointRewritten || commandEntriesWritten > 0 || commandEntriesRemoved > 0;
  }
}
