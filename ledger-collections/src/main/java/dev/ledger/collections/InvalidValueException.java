package dev.ledger.collections;

/**
 * A value cannot be stored or used as asked: a primary key field that is missing or not a
 * string, number or boolean; a document that does not map to a JSON object; {@code inc} or
 * {@code chmax} on a value or amount that is not a number (booleans are not numbers); a
 * number that overflows; a floating-point infinity or NaN anywhere in a value (JSON has
 * none: written, it would come back as a string). The transaction wrote nothing.
 */
public class InvalidValueException extends CollectionException {
  private static final long serialVersionUID = 1L;
  /** Serialized with the exception; what {@link #name()} returns. */
  private final String name;

  /**
   * Creates the exception.
   *
   * @param partition the partition
   * @param name the collection, queue or key-value the value was for
   * @param problem what is wrong, naming the key or field
   */
  public InvalidValueException(String partition, String name, String problem) {
    super(partition, "'" + name + "': " + problem);
    this.name = name;
  }

  /**
   * The collection, queue or key-value the value was for.
   *
   * @return its name
   */
  public String name() {
    return name;
  }
}
