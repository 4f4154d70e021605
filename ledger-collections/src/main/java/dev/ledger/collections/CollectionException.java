package dev.ledger.collections;

import dev.ledger.core.LedgerException;

/**
 * Root of the errors a collection store raises for data it refuses: a duplicate or missing
 * key, a malformed query, an undeclared name, a value of the wrong type. When a transaction
 * fails with one of these, the whole transaction is refused and nothing is written.
 */
public class CollectionException extends LedgerException {
  private static final long serialVersionUID = 1L;
  /** Serialized with the exception; what {@link #partition()} returns. */
  private final String partition;

  /**
   * Creates the exception.
   *
   * @param partition the partition the refused operation ran in, or null when none
   * @param message names what was refused and why
   */
  public CollectionException(String partition, String message) {
    super(partition == null ? message : "Partition '" + partition + "': " + message);
    this.partition = partition;
  }

  /**
   * The partition the refused operation ran in.
   *
   * @return the partition id, or null when the refusal came before one was known
   */
  public String partition() {
    return partition;
  }
}
