package dev.ledger.collections;

import java.util.Optional;

/**
 * One key-value of one partition inside a transaction. Keys are stored as their canonical
 * JSON; {@code inc} and {@code chmax} are atomic with the rest of the transaction and work on
 * numbers only (booleans are not numbers). Integral values add as 64-bit integers, others as
 * decimals.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public interface KeyValue<K, V> extends KeyValueReader<K, V> {
  /**
   * Sets a key's value.
   *
   * @param key the key
   * @param value the value; not null
   * @throws InvalidValueException if the value maps to null
   * @throws dev.ledger.core.LimitExceededException if the value exceeds the size limit
   */
  void set(K key, V value);

  /**
   * Removes a key.
   *
   * @param key the key
   * @return its value before, or empty if it had none
   */
  Optional<V> pop(K key);

  /**
   * Adds to a key's number; a missing key starts from {@code amount}.
   *
   * @param key the key
   * @param amount the amount, a number
   * @return the value stored after the call
   * @throws InvalidValueException if the amount or the stored value is not a number, or the
   *     sum overflows a 64-bit integer
   */
  V inc(K key, V amount);

  /**
   * Raises a key's number to {@code value} if it is lower (or missing).
   *
   * @param key the key
   * @param value the candidate, a number
   * @return the value stored after the call
   * @throws InvalidValueException if the candidate or the stored value is not a number
   */
  V chmax(K key, V value);
}
