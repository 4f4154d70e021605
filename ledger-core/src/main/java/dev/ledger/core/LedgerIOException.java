package dev.ledger.core;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * An I/O operation failed (disk full, permission, device error), or the environment does not
 * let the store use a path (its base is a regular file, not a directory). When it fails
 * while writing, the commit's outcome is what the next {@link Ledger#load} shows: the commit
 * was not acknowledged, and after a failed {@code force} the ledger refuses further writes
 * ({@link LedgerFailedException}) until the store is reopened, because the kernel may have
 * dropped the unwritten pages while reporting the error only once.
 *
 * <p>The message reads {@code I/O error while <operation>: <path>: <reason>}, the reason in
 * plain words ("not a directory", "permission denied", "no such file or directory") rather
 * than the name of a Java exception.
 */
public class LedgerIOException extends LedgerException {
  private static final long serialVersionUID = 1L;
  /** Trailing words some callers end an operation with ("publishing blob X at"). */
  private static final Pattern TRAILING_PREPOSITION = Pattern.compile(" (at|in|of|via|on)$");
  private final transient Path path;

  /**
   * Creates the exception for the operation on {@code path}.
   *
   * @param operation what was being done, as a phrase ({@code "reading checkpoint"})
   * @param path the file or directory the operation touched
   * @param cause the failure
   */
  public LedgerIOException(String operation, Path path, IOException cause) {
    super("I/O error while " + TRAILING_PREPOSITION.matcher(operation).replaceFirst("") + ": "
        + path + ": " + reason(path, cause), cause);
    this.path = path;
  }

  /**
   * Creates the exception with a complete message, for a refusal that is best said in its
   * own words ({@code "Cannot open a store at /data/x: not a directory"}).
   *
   * @param path the file or directory concerned
   * @param message the whole message, naming {@code path}
   * @param cause the failure, or null
   */
  public LedgerIOException(Path path, String message, IOException cause) {
    super(message, cause);
    this.path = path;
  }

  /**
   * The file or directory the operation touched.
   *
   * @return the path, as the store names it
   */
  public Path path() {
    return path;
  }

  /**
   * What went wrong, in plain words: the file the failure names when it is not {@code path},
   * then the reason.
   */
  private static String reason(Path path, IOException cause) {
    if (!(cause instanceof FileSystemException failure)) {
      return cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
    }
    String plain;
    if (cause instanceof NoSuchFileException) {
      plain = "no such file or directory";
    } else if (cause instanceof FileAlreadyExistsException) {
      plain = "already exists";
    } else if (cause instanceof NotDirectoryException) {
      plain = "not a directory";
    } else if (cause instanceof AccessDeniedException) {
      plain = "permission denied";
    } else if (cause instanceof DirectoryNotEmptyException) {
      plain = "directory not empty";
    } else {
      plain = failure.getReason() != null ? failure.getReason()
          : cause.getClass().getSimpleName();
    }
    if (failure.getReason() != null && !plain.equals(failure.getReason())) {
      plain = plain + " (" + failure.getReason() + ")";
    }
    String file = failure.getFile();
    String other = failure.getOtherFile();
    String where = file == null || file.equals(String.valueOf(path)) ? ""
        : file + (other == null ? "" : " -> " + other) + ": ";
    return where + plain;
  }
}
