package dev.ledger.core;

import java.io.IOException;
import java.nio.file.Path;

/**
 * An I/O operation failed (disk full, permission, device error). When it fails while
 * writing, the commit's outcome is what the next {@link Ledger#load} shows: the commit was
 * not acknowledged, and after a failed {@code force} the ledger refuses further writes
 * ({@link LedgerFailedException}) until the store is reopened, because the kernel may have
 * dropped the unwritten pages while reporting the error only once.
 */
public class LedgerIOException extends LedgerException {
  private static final long serialVersionUID = 1L;
  private final transient Path path;

  /** Creates the exception for the operation on {@code path}. */
  public LedgerIOException(String operation, Path path, IOException cause) {
    super("I/O error during " + operation + " of " + path + ": " + cause, cause);
    this.path = path;
  }

  /** The file or directory the operation touched. */
  public Path path() {
    return path;
  }
}
