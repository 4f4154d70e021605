package dev.ledger.core;

import java.nio.file.Path;
import java.util.Optional;

/**
 * A store operation that removes or moves a whole ledger ({@code delete}, {@code archive}) was
 * refused because another writer (another process, or another store or thread of this one)
 * held the ledger's writer lock past the deadline. Nothing was changed.
 */
public class LedgerBusyException extends LedgerException {
  private static final long serialVersionUID = 1L;
  /** Serialized with the exception: what {@link #rootId()} returns. */
  private final String rootId;
  private final transient Path lockFile;
  /** Serialized with the exception: the holder {@link #holder()} wraps, or null if unknown. */
  private final String holder;

  /**
   * Creates the exception.
   *
   * @param rootId the ledger
   * @param operation what was refused, as in {@code "delete"}
   * @param lockFile the ledger's lock file, or null for an in-memory ledger
   * @param holder who held the lock, as it recorded itself; null when unknown
   * @param cause the timed-out wait, or null
   */
  public LedgerBusyException(String rootId, String operation, Path lockFile, String holder,
      Throwable cause) {
    super("Refused to " + operation + " ledger '" + rootId + "': its writer lock "
        + (lockFile == null ? "" : lockFile + " ") + "is held"
        + (holder == null ? "" : " by " + holder) + "; nothing was changed", cause);
    this.rootId = rootId;
    this.lockFile = lockFile;
    this.holder = holder;
  }

  /**
   * The ledger whose lock was held.
   *
   * @return the root id
   */
  public String rootId() {
    return rootId;
  }

  /**
   * The ledger's lock file.
   *
   * @return its path, or {@code null} for an in-memory ledger
   */
  public Path lockFile() {
    return lockFile;
  }

  /**
   * Who held the lock, as the holder recorded itself.
   *
   * @return the holder, if known
   */
  public Optional<String> holder() {
    return Optional.ofNullable(holder);
  }
}
