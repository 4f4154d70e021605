package dev.ledger.core;

import java.nio.file.Path;

/**
 * A repair was refused because the journal itself is damaged before its tail: the journal is
 * the only source a repair rebuilds from, so nothing was changed. The path and offset name
 * the first damage found.
 */
public class UnrepairableLedgerException extends CorruptLedgerException {
  private static final long serialVersionUID = 1L;
  private final String rootId;

  /**
   * Creates the exception.
   *
   * @param rootId the ledger
   * @param path the damaged file
   * @param offset the byte offset of the damage, or -1
   * @param detail what is wrong
   */
  public UnrepairableLedgerException(String rootId, Path path, long offset, String detail) {
    super(path, offset, "cannot repair ledger '" + rootId + "' (nothing was changed): "
        + detail);
    this.rootId = rootId;
  }

  /**
   * The ledger whose repair was refused.
   *
   * @return the root id
   */
  public String rootId() {
    return rootId;
  }
}
