package dev.ledger.core;

import java.nio.file.Path;

/**
 * The lock file of a ledger was deleted or replaced while a writer held its lock, so another
 * process could lock a different file under the same name. The writer noticed before its
 * commit point and wrote nothing. Find out what removes lock files; then retry.
 */
public class LockLostException extends LedgerException {
  private static final long serialVersionUID = 1L;
  private final transient Path lockFile;

  /**
   * Creates the exception.
   *
   * @param lockFile the lock file
   * @param detail what happened to it ({@code "deleted"}, {@code "replaced"})
   */
  public LockLostException(Path lockFile, String detail) {
    super("Lock file " + lockFile + " was " + detail + " while held; nothing was written");
    this.lockFile = lockFile;
  }

  /**
   * The lock file.
   *
   * @return its path
   */
  public Path lockFile() {
    return lockFile;
  }
}
