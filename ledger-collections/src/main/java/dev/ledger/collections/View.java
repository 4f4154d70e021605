package dev.ledger.collections;

/**
 * A consistent snapshot of one partition, handed to a {@link CollectionStore#read} callback.
 * Valid only inside that callback; not thread-safe.
 */
public interface View {
  /**
   * The partition.
   *
   * @return its id
   */
  String partition();

  /**
   * The revision of the partition's ledger this view shows; 0 before the first commit.
   *
   * @return the revision
   */
  long revision();

  /**
   * Reads a declared collection.
   *
   * @param name the collection's name
   * @param type its declared document class
   * @param <T> the document type
   * @return the reader
   * @throws UnknownCollectionException if no collection of that name and type is declared
   */
  <T> CollectionReader<T> collection(String name, Class<T> type);

  /**
   * Reads a declared queue.
   *
   * @param name the queue's name
   * @param type its declared item class
   * @param <T> the item type
   * @return the reader
   * @throws UnknownCollectionException if no queue of that name and type is declared
   */
  <T> QueueReader<T> queue(String name, Class<T> type);

  /**
   * Reads a declared key-value.
   *
   * @param name the key-value's name
   * @param keyType its declared key class
   * @param valueType its declared value class
   * @param <K> the key type
   * @param <V> the value type
   * @return the reader
   * @throws UnknownCollectionException if no key-value of that name and types is declared
   */
  <K, V> KeyValueReader<K, V> keyValue(String name, Class<K> keyType, Class<V> valueType);
}
