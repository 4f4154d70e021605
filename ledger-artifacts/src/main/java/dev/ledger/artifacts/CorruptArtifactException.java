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

  /** Creates the exception for {@code path}. */
  public CorruptArtifactException(Path path, String detail) {
    this(path, detail, null);
  }

  /** Creates the exception with the failure that revealed the damage. */
  public CorruptArtifactException(Path path, String detail, Throwable cause) {
    super("Corrupt artifact file " + path + ": " + detail, cause);
    this.path = path;
  }

  /** The damaged file. */
  public Path path() {
    return path;
  }
}
