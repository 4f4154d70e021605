package dev.ledger.core.spi;

/**
 * Told by a backend of what it writes, for the store's metrics (the counters
 * {@code ledger.journal.written}, {@code ledger.checkpoints} and {@code ledger.journal.forces}
 * when the store's options carry a meter registry). A backend gets it from {@link AbstractLedgerStore#writeMeter()} and calls
 * it after each write it made; a backend without journal files or checkpoints never calls it.
 * Implementations are thread-safe, return at once and never throw.
 */
public interface WriteMeter {
  /** Counts nothing: the meter of a store without a registry. */
  WriteMeter NONE = new WriteMeter() {
    @Override
    public void journalWritten(long bytes) {}

    @Override
    public void checkpointWritten() {}
  };

  /**
   * Journal records were written.
   *
   * @param bytes their size in bytes, as written
   */
  void journalWritten(long bytes);

  /** A checkpoint of the state was written. */
  void checkpointWritten();

  /**
   * A journal was forced to make commits durable: one {@code fdatasync}, whether it covered
   * one commit or a group. Forces of other files (checkpoints, directories) are not counted.
   * The default counts nothing, for a backend that never forces.
   */
  default void journalForced() {}
}
