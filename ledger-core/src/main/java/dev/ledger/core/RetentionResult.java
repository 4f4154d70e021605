package dev.ledger.core;

/**
 * What one application of a {@link RetentionPolicy} to a ledger did.
 *
 * @param rootId the ledger
 * @param revisionsRemoved revisions whose records this call made unreadable (0 if the policy
 *     allowed nothing more than was already removed)
 * @param segmentsRemoved journal segment files deleted or moved to the archive directory,
 *     including ones an interrupted earlier retention had left (0 in the in-memory store)
 * @param bytesRemoved bytes of journal removed from the ledger's directory (the in-memory
 *     store: bytes of record lines dropped)
 * @param firstRetainedRevision the first revision whose record the journal still holds
 * @param firstRetainedSequence the sequence of the first event still readable (a read from
 *     {@link Cursor#START} starts there)
 * @param checkpointWritten whether a checkpoint had to be written first, because the last one
 *     pointed into the history being removed
 */
public record RetentionResult(String rootId, long revisionsRemoved, int segmentsRemoved,
    long bytesRemoved, long firstRetainedRevision, long firstRetainedSequence,
    boolean checkpointWritten) {
  /**
   * Whether anything was removed.
   *
   * @return true if a revision, a segment or a byte was removed
   */
  public boolean changed() {
    return revisionsRemoved > 0 || segmentsRemoved > 0 || bytesRemoved > 0;
  }
}
