package dev.ledger.collections;

/** An update named a primary key the collection does not hold. The transaction wrote nothing. */
public class DocumentNotFoundException extends CollectionException {
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
   * @param key the primary key, as its canonical JSON array
   */
  public DocumentNotFoundException(String partition, String collection, String key) {
    super(partition, "collection '" + collection + "' holds no document with key " + key);
    this.collection = collection;
    this.key = key;
  }

  /**
   * The collection the update went to.
   *
   * @return its name
   */
  public String collection() {
    return collection;
  }

  /**
   * The missing key.
   *
   * @return the key as its canonical JSON array
   */
  public String key() {
    return key;
  }
}
