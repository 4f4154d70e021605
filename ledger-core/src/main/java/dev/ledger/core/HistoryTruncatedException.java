package dev.ledger.core;

/**
 * A read needed history that retention removed: a cursor that points before the first
 * retained event ({@link Ledger#events}, {@link Ledger#replay}, an {@link EventFollower}), an
 * export of a ledger whose journal no longer starts at revision 1, or a read that was
 * overtaken by a retention removing the segment it was reading. Nothing was read or written.
 *
 * <p>The caller decides what to do: start over from {@link Cursor#START} (which reads from
 * the first retained event, {@link #firstRetainedSequence()}) after rebuilding whatever it
 * derived from the lost events, or report the gap. Events are never skipped silently.
 */
public class HistoryTruncatedException extends LedgerException {
  private static final long serialVersionUID = 1L;

  private final String rootId;
  private final long cursorSequence;
  private final long firstRetainedSequence;

  /**
   * Creates the exception for a cursor read.
   *
   * @param rootId the ledger
   * @param cursorSequence the last sequence the cursor covers (0 for a read from the start)
   * @param firstRetainedSequence the sequence of the first event still in the journal
   */
  public HistoryTruncatedException(String rootId, long cursorSequence,
      long firstRetainedSequence) {
    this(rootId, cursorSequence, firstRetainedSequence, "the cursor after sequence "
        + cursorSequence + " needs event " + (cursorSequence + 1));
  }

  /**
   * Creates the exception with a description of the read that was refused.
   *
   * @param rootId the ledger
   * @param cursorSequence the last sequence the read had covered (0 for a read from the start)
   * @param firstRetainedSequence the sequence of the first event still in the journal
   * @param what the read that needed the removed history
   */
  public HistoryTruncatedException(String rootId, long cursorSequence,
      long firstRetainedSequence, String what) {
    super("History of ledger '" + rootId + "' was truncated by retention: " + what
        + ", but events before sequence " + firstRetainedSequence + " were removed "
        + "(first retained sequence " + firstRetainedSequence + ")");
    this.rootId = rootId;
    this.cursorSequence = cursorSequence;
    this.firstRetainedSequence = firstRetainedSequence;
  }

  /**
   * The ledger whose history was truncated.
   *
   * @return the root id
   */
  public String rootId() {
    return rootId;
  }

  /**
   * The last sequence the refused cursor covers: the read wanted event
   * {@code cursorSequence() + 1}.
   *
   * @return the cursor's sequence, 0 for a read from the start
   */
  public long cursorSequence() {
    return cursorSequence;
  }

  /**
   * The sequence of the first event the journal still holds: a read from
   * {@link Cursor#START} starts there.
   *
   * @return the first retained sequence, at least 1
   */
  public long firstRetainedSequence() {
    return firstRetainedSequence;
  }
}
