package dev.ledger.collections;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * A primary key: the values of a collection's key fields, in declaration order. Each value is
 * a string, number or boolean (after Jackson mapping: an enum or {@code Instant} maps to a
 * string). Keys are stored as the canonical JSON of the value array, which is deterministic
 * and injective: two keys are the same key exactly when their JSON values are equal.
 *
 * @param values the key values, in the order the collection declares its key fields
 */
public record Key(List<Object> values) {
  /**
   * Copies the values.
   *
   * @param values the key values; none null
   * @throws NullPointerException if the list or a value is null
   * @throws IllegalArgumentException if the list is empty
   */
  public Key {
    values = List.copyOf(values);
    if (values.isEmpty()) {
      throw new IllegalArgumentException("a key has at least one value");
    }
  }

  /**
   * A key of the given values.
   *
   * @param values the key values in declaration order
   * @return the key
   * @throws NullPointerException if a value is null
   * @throws IllegalArgumentException if there is no value
   */
  public static Key of(Object... values) {
    return new Key(Collections.unmodifiableList(Arrays.asList(values)));
  }
}
