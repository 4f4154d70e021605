package dev.ledger.core;

import java.nio.file.Path;

/**
 * There is no store where one was to be opened for reading only: the directory does not
 * exist, is not a directory, or holds no store marker. Nothing was created.
 */
public class StoreNotFoundException extends LedgerException {
  private static final long serialVersionUID = 1L;
  private final transient Path path;

  /**
   * Creates the exception for {@code path}.
   *
   * @param path the directory given as the store's base
   * @param detail why no store is there ({@code "the directory does not exist"})
   */
  public StoreNotFoundException(Path path, String detail) {
    super("No store at " + path + ": " + detail);
    this.path = path;
  }

  /**
   * The directory given as the store's base.
   *
   * @return the path, as given (made absolute)
   */
  public Path path() {
    return path;
  }
}
