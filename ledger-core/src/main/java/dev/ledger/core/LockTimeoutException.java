package dev.ledger.core;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The writer lock of a ledger could not be taken within the configured deadline. Nothing was
 * written. The message names the lock file and, when the holder recorded itself, its process
 * id, host and when it took the lock.
 */
public class LockTimeoutException extends LedgerException {
  private static final long serialVersionUID = 1L;
  private final transient Path lockFile;
  /** Serialized with the exception: the holder {@link #holder()} wraps, or null if unknown. */
  private final String holder;

  /**
   * Creates the exception for a lock file.
   *
   * @param lockFile the lock file
   * @param waited how long the writer waited
   * @param holder who held it, as the holder recorded itself; null when unknown
   */
  public LockTimeoutException(Path lockFile, Duration waited, String holder) {
    super("Timed out after " + waited.toMillis() + " ms waiting for lock " + lockFile
        + (holder == null ? " (holder unknown)" : " held by " + holder));
    this.lockFile = lockFile;
    this.holder = holder;
  }

  /**
   * Creates the exception for an in-memory lock.
   *
   * @param what the lock, as in {@code "ledger 'run-1'"}
   * @param waited how long the writer waited
   */
  public LockTimeoutException(String what, Duration waited) {
    super("Timed out after " + waited.toMillis() + " ms waiting for the writer lock of " + what);
    this.lockFile = null;
    this.holder = null;
  }

  /**
   * The lock file.
   *
   * @return its path, or {@code null} for an in-memory ledger
   */
  public Path lockFile() {
    return lockFile;
  }

  /**
   * Who held the lock when the wait ended, as recorded by the holder.
   *
   * @return the holder, if known
   */
  public Optional<String> holder() {
    return Optional.ofNullable(holder);
  }
}
