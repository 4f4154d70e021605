package dev.ledger.collections;

/**
 * The collections, queues and key-values of one partition inside a
 * {@link CollectionStore#execute} callback. Reads see the transaction's own writes; all of its
 * writes commit as one ledger commit when the callback returns, or none do. Valid only inside
 * that callback; not thread-safe.
 */
public interface Transaction extends View {
  /**
   * A declared collection, for reading and writing.
   *
   * @param name the collection's name
   * @param type its declared document class
   * @param <T> the document type
   * @return the collection
   * @throws UnknownCollectionException if no collection of that name and type is declared
   */
  @Override
  <T> Collection<T> collection(String name, Class<T> type);

  /**
   * A declared queue, for reading and writing.
   *
   * @param name the queue's name
   * @param type its declared item class
   * @param <T> the item type
   * @return the queue
   * @throws UnknownCollectionException if no queue of that name and type is declared
   */
  @Override
  <T> Queue<T> queue(String name, Class<T> type);

  /**
   * A declared key-value, for reading and writing.
   *
   * @param name the key-value's name
   * @param keyType its declared key class
   * @param valueType its declared value class
   * @param <K> the key type
   * @param <V> the value type
   * @return the key-value
   * @throws UnknownCollectionException if no key-value of that name and types is declared
   */
  @Override
  <K, V> KeyValue<K, V> keyValue(String name, Class<K> keyType, Class<V> valueType);
}
