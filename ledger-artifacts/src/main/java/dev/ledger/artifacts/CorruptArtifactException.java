package dev.ledger.artifacts;

import dev.ledger.core.LedgerException;
import java.nio.file.Path;

/**
 * A file of the artifact store does not hold what the store writes: a snapshot that does not
 * parse or whose fields disagree with its name, or (as {@link CorruptBlobException}) a blob
 * whose bytes do not match its name. The store reports such damage and changes nothing.
 */
public class CorruptArtifactException extends LedgerException {
  private static final long serialVersionUID = 1L;
  private final transient Path path;

  /**
   * Creates the exception for a damaged file.
   *
   * @param path the damaged file
   * @param detail what is wrong with it
   */
  public CorruptArtifactException(Path path, String detail) {
    this(path, detail, null);
  }

  /**
   * Creates the exception with the failure that revealed the damage.
   *
   * @param path the damaged file
   * @param detail what is wrong with it
   * @param cause the failure that revealed it, or null
   */
  public CorruptArtifactException(Path path, String detail, Throwable cause) {
    super("Corrupt artifact file " + path + ": " + detail, cause);
    this.path = path;
  }

  /**
   * The damaged file.
   *
   * @return its path (for an in-memory store, a descriptive pseudo path)
   */
  public Path path() {
    return path;
  }
}
