package dev.ledger.collections;

/**
 * A transaction or read asked for a collection, queue or key-value the schema does not
 * declare, or declares with another kind or type. Nothing was written.
 */
public class UnknownCollectionException extends CollectionException {
  private static final long serialVersionUID = 1L;
  /** Serialized with the exception; what {@link #name()} returns. */
  private final String name;

  /**
   * Creates the exception.
   *
   * @param partition the partition
   * @param name the name asked for
   * @param problem what the schema says instead ({@code "is not declared"})
   */
  public UnknownCollectionException(String partition, String name, String problem) {
    super(partition, "'" + name + "' " + problem);
    this.name = name;
  }

  /**
   * The name asked for.
   *
   * @return the name
   */
  public String name() {
    return name;
  }
}
