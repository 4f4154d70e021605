package dev.ledger.core;

/**
 * An import was refused because its input is not a complete, valid ledger export that this
 * library reads: a header of another kind or of a newer format, a truncated file, a line whose
 * checksum fails, or records that break revision or sequence continuity. The whole input is
 * checked before the ledger is published, so nothing in the store changed.
 */
public class InvalidExportException extends LedgerException {
  private static final long serialVersionUID = 1L;
  /** Serialized with the exception; what {@link #line()} returns. */
  private final long line;

  /**
   * Creates the exception.
   *
   * @param line the 1-based line of the input at fault (1 is the header), or 0 for the
   *     input as a whole
   * @param detail what is wrong, with expected and actual values where there are two
   */
  public InvalidExportException(long line, String detail) {
    super("Invalid ledger export" + (line > 0 ? " at line " + line : "") + ": " + detail);
    this.line = line;
  }

  /**
   * The line of the input at fault.
   *
   * @return the 1-based line (1 is the header), or 0 if the fault is not on one line
   */
  public long line() {
    return line;
  }
}
