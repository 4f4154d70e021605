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
  private final String holder;

  /** Creates the exception; {@code holder} is null when unknown. */
  public LockTimeoutException(Path lockFile, Duration waited, String holder) {
    super("Timed out after " + waited.toMillis() + " ms waiting for lock " + lockFile
        + (holder == null ? " (holder unknown)" : " held by " + holder));
    this.lockFile = lockFile;
    this.holder = holder;
  }

  /** Creates the exception for an in-memory lock described by {@code what}. */
  public LockTimeoutException(String what, Duration waited) {
    super("Timed out after " + waited.toMillis() + " ms waiting for the writer lock of " + what);
    this.lockFile = null;
    this.holder = null;
  }

  /** The lock file, or {@code null} for an in-memory ledger. */
  public Path lockFile() {
    return lockFile;
  }

  /** Who held the lock when the wait ended, as recorded by the holder, if known. */
  public Optional<String> holder() {
    return Optional.ofNullable(holder);
  }
}
