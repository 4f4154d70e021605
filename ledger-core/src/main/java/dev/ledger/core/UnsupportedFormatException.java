package dev.ledger.core;

import java.nio.file.Path;

/**
 * A file was written in a format version newer than this library reads. It is refused, never
 * misread; upgrade the library to open it.
 */
public class UnsupportedFormatException extends LedgerException {
  private static final long serialVersionUID = 1L;
  private final transient Path path;
  /** Serialized with the exception; what {@link #found()} returns. */
  private final long found;
  /** Serialized with the exception; what {@link #supported()} returns. */
  private final long supported;

  /**
   * Creates the exception.
   *
   * @param path the file refused
   * @param format which format ({@code "store format"}, {@code "checkpoint format"})
   * @param found the version found in the file
   * @param supported the newest version this library reads
   */
  public UnsupportedFormatException(Path path, String format, long found, long supported) {
    super("File " + path + " has " + format + " version " + found
        + "; this library reads up to version " + supported);
    this.path = path;
    this.found = found;
    this.supported = supported;
  }

  /**
   * The file refused.
   *
   * @return its path
   */
  public Path path() {
    return path;
  }

  /**
   * The version found in the file.
   *
   * @return the version
   */
  public long found() {
    return found;
  }

  /**
   * The newest version this library reads.
   *
   * @return the version
   */
  public long supported() {
    return supported;
  }
}
