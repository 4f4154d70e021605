package dev.ledger.collections;

/** An insert found a document with the same primary key. The transaction wrote nothing. */
public class DuplicateKeyException extends CollectionException {
  private static final long serialVersionUID = 1L;
  /** Serialized with the exception; what {@link #collection()} returns. */
  private final String collection;
  /** Serialized with the exception; what {@link #key()} returns. */
  private final String key;

  /**
   * Creates the exception.
   *
   * @param partition the partition
   * @param collection the collection
   * @param key the primary key, as its canonical JSON array ({@code ["r-1"]})
   */
  public DuplicateKeyException(String partition, String collection, String key) {
    super(partition, "collection '" + collection + "' already holds a document with key "
        + key);
    this.collection = collection;
    this.key = key;
  }

  /**
   * The collection the insert went to.
   *
   * @return its name
   */
  public String collection() {
    return collection;
  }

  /**
   * The duplicate key.
   *
   * @return the key as its canonical JSON array
   */
  public String key() {
    return key;
  }
}
