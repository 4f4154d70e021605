package dev.ledger.collections;

import java.util.Optional;

/**
 * The reads of one key-value of one partition. Valid only inside the callback that handed it
 * out; not thread-safe.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public interface KeyValueReader<K, V> {
  /**
   * The value of a key.
   *
   * @param key the key
   * @return the value, or empty
   */
  Optional<V> get(K key);

  /**
   * Whether a key has a value.
   *
   * @param key the key
   * @return true if it has
   */
  boolean has(K key);

  /**
   * The number of keys.
   *
   * @return the count
   */
  long size();
}
