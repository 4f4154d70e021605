package dev.ledger.core;

import java.nio.file.Path;

/**
 * A path inside a store is a symbolic link. Stores never follow links below their base
 * directory: a link there could make a copied or restored directory read, write or lock
 * files outside it, or two names share one file. The base directory itself may be a link.
 * Nothing was read through the link, and nothing was written.
 */
public class SymbolicLinkException extends LedgerException {
  private static final long serialVersionUID = 1L;
  private final transient Path path;

  /**
   * Creates the exception for the link at {@code path}.
   *
   * @param path the link
   */
  public SymbolicLinkException(Path path) {
    super("Refused to follow " + path + ": it is a symbolic link, and a store follows none "
        + "below its base directory (replace it with the file or directory it points to)");
    this.path = path;
  }

  /**
   * The link.
   *
   * @return its path
   */
  public Path path() {
    return path;
  }
}
