package dev.ledger.core;

import java.nio.file.Path;

/**
 * A file the store wrote does not hold what the store writes: a bad checksum before the tail
 * of a journal, a gap or repeat in revisions, an unparsable {@code state.json}. The store
 * never skips or resets such damage; it stops and reports the file and byte offset.
 */
public class CorruptLedgerException extends LedgerException {
  private static final long serialVersionUID = 1L;
  private final transient Path path;
  /** Serialized with the exception; what {@link #offset()} returns. */
  private final long offset;

  /**
   * Creates the exception.
   *
   * @param path the damaged file
   * @param offset byte offset of the damage; -1 when the whole file is concerned
   * @param detail what is wrong there
   */
  public CorruptLedgerException(Path path, long offset, String detail) {
    this(path, offset, detail, null);
  }

  /**
   * Creates the exception with the parse or I/O failure that revealed the damage.
   *
   * @param path the damaged file
   * @param offset byte offset of the damage, or -1
   * @param detail what is wrong there
   * @param cause the failure that revealed it, or null
   */
  public CorruptLedgerException(Path path, long offset, String detail, Throwable cause) {
    super("Corrupt ledger file " + path + (offset >= 0 ? " at offset " + offset : "") + ": "
        + detail, cause);
    this.path = path;
    this.offset = offset;
  }

  /**
   * The damaged file.
   *
   * @return its path
   */
  public Path path() {
    return path;
  }

  /**
   * Byte offset of the damage.
   *
   * @return the offset, or -1 when the file as a whole is unusable
   */
  public long offset() {
    return offset;
  }
}
