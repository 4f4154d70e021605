package dev.ledger.collections;

import com.google.common.base.Preconditions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What a partition holds: its collections, queues and key-values, each by name. Every
 * partition of a {@link CollectionStore} has the same schema. Names are unique across all
 * three kinds, 1 to 64 characters of {@code [A-Za-z0-9_-]}. Immutable and thread-safe.
 *
 * <pre>{@code
 * Schema schema = Schema.builder()
 *     .collection("rollouts", Rollout.class, List.of("rolloutId"), List.of("status"))
 *     .queue("pending", String.class)
 *     .keyValue("counters", String.class, Long.class)
 *     .build();
 * }</pre>
 *
 * @param collections the collections, by name, in declaration order
 * @param queues the queues, by name
 * @param keyValues the key-values, by name
 */
public record Schema(Map<String, CollectionSpec<?>> collections, Map<String, QueueSpec<?>> queues,
    Map<String, KeyValueSpec<?, ?>> keyValues) {

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

  /**
   * Copies the maps and checks that every name is valid and used once.
   *
   * @param collections the collections, by name
   * @param queues the queues, by name
   * @param keyValues the key-values, by name
   * @throws IllegalArgumentException if a map key differs from its spec's name, or a name is
   *     used twice
   * @throws NullPointerException if a map is null
   */
  public Schema {
    collections = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(collections));
    queues = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(queues));
    keyValues = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(keyValues));
    java.util.Set<String> seen = new java.util.HashSet<>();
    collections.forEach((name, spec) -> {
      Preconditions.checkArgument(name.equals(spec.name()), "key %s names %s", name, spec);
      Preconditions.checkArgument(seen.add(name), "name '%s' is declared twice", name);
    });
    queues.forEach((name, spec) -> {
      Preconditions.checkArgument(name.equals(spec.name()), "key %s names %s", name, spec);
      Preconditions.checkArgument(seen.add(name), "name '%s' is declared twice", name);
    });
    keyValues.forEach((name, spec) -> {
      Preconditions.checkArgument(name.equals(spec.name()), "key %s names %s", name, spec);
      Preconditions.checkArgument(seen.add(name), "name '%s' is declared twice", name);
    });
  }

  /**
   * A builder of an empty schema.
   *
   * @return the builder
   */
  public static Builder builder() {
    return new Builder();
  }

  private static String checkName(String name) {
    Preconditions.checkNotNull(name, "name");
    Preconditions.checkArgument(NAME.matcher(name).matches(),
        "a name has 1 to 64 characters of [A-Za-z0-9_-]: '%s'", name);
    return name;
  }

  /**
   * A collection: documents of one record type, keyed by one or more of their fields.
   *
   * @param name the collection's name
   * @param type the Jackson-mapped document class; every document maps to a JSON object
   * @param primaryKey the top-level field names the key is made of, in order; not empty
   * @param indexes top-level field names with a secondary index ({@code exact} and
   *     {@code within} on them are sublinear)
   * @param <T> the document type
   */
  public record CollectionSpec<T>(String name, Class<T> type, List<String> primaryKey,
      List<String> indexes) {
    /**
     * Checks and copies.
     *
     * @param name the name
     * @param type the document class
     * @param primaryKey the key fields
     * @param indexes the indexed fields
     * @throws IllegalArgumentException if the name is invalid, the key is empty, or a field
     *     name is empty or repeated
     * @throws NullPointerException if an argument is null
     */
    public CollectionSpec {
      checkName(name);
      Preconditions.checkNotNull(type, "type");
      primaryKey = List.copyOf(primaryKey);
      indexes = List.copyOf(indexes);
      Preconditions.checkArgument(!primaryKey.isEmpty(),
          "collection '%s' needs at least one primary key field", name);
      Preconditions.checkArgument(primaryKey.stream().distinct().count() == primaryKey.size()
          && primaryKey.stream().noneMatch(String::isEmpty),
          "collection '%s': key fields must be distinct and non-empty: %s", name, primaryKey);
      Preconditions.checkArgument(indexes.stream().distinct().count() == indexes.size()
          && indexes.stream().noneMatch(String::isEmpty),
          "collection '%s': indexed fields must be distinct and non-empty: %s", name, indexes);
    }
  }

  /**
   * A FIFO queue of items of one type.
   *
   * @param name the queue's name
   * @param type the Jackson-mapped item class
   * @param <T> the item type
   */
  public record QueueSpec<T>(String name, Class<T> type) {
    /**
     * Checks.
     *
     * @param name the name
     * @param type the item class
     * @throws IllegalArgumentException if the name is invalid
     * @throws NullPointerException if an argument is null
     */
    public QueueSpec {
      checkName(name);
      Preconditions.checkNotNull(type, "type");
    }
  }

  /**
   * A map from keys to values.
   *
   * @param name the key-value's name
   * @param keyType the Jackson-mapped key class; keys are stored as their canonical JSON
   * @param valueType the Jackson-mapped value class; a {@link Number} type for
   *     {@code inc} and {@code chmax}
   * @param <K> the key type
   * @param <V> the value type
   */
  public record KeyValueSpec<K, V>(String name, Class<K> keyType, Class<V> valueType) {
    /**
     * Checks.
     *
     * @param name the name
     * @param keyType the key class
     * @param valueType the value class
     * @throws IllegalArgumentException if the name is invalid
     * @throws NullPointerException if an argument is null
     */
    public KeyValueSpec {
      checkName(name);
      Preconditions.checkNotNull(keyType, "keyType");
      Preconditions.checkNotNull(valueType, "valueType");
    }
  }

  /** Collects declarations; not thread-safe. */
  public static final class Builder {
    private final Map<String, CollectionSpec<?>> collections = new LinkedHashMap<>();
    private final Map<String, QueueSpec<?>> queues = new LinkedHashMap<>();
    private final Map<String, KeyValueSpec<?, ?>> keyValues = new LinkedHashMap<>();

    private Builder() {}

    /**
     * Declares a collection without secondary indexes.
     *
     * @param name the name
     * @param type the document class
     * @param primaryKey the key fields, in order
     * @return this builder
     * @throws IllegalArgumentException as {@link CollectionSpec}
     */
    public Builder collection(String name, Class<?> type, List<String> primaryKey) {
      return collection(name, type, primaryKey, List.of());
    }

    /**
     * Declares a collection.
     *
     * @param name the name
     * @param type the document class
     * @param primaryKey the key fields, in order
     * @param indexes the fields with a secondary index
     * @return this builder
     * @throws IllegalArgumentException as {@link CollectionSpec}, or if the name is taken
     */
    public Builder collection(String name, Class<?> type, List<String> primaryKey,
        List<String> indexes) {
      CollectionSpec<?> spec = new CollectionSpec<>(name, type, primaryKey, indexes);
      Preconditions.checkArgument(collections.putIfAbsent(name, spec) == null,
          "collection '%s' is declared twice", name);
      return this;
    }

    /**
     * Declares a queue.
     *
     * @param name the name
     * @param type the item class
     * @return this builder
     * @throws IllegalArgumentException if the name is invalid or taken
     */
    public Builder queue(String name, Class<?> type) {
      QueueSpec<?> spec = new QueueSpec<>(name, type);
      Preconditions.checkArgument(queues.putIfAbsent(name, spec) == null,
          "queue '%s' is declared twice", name);
      return this;
    }

    /**
     * Declares a key-value.
     *
     * @param name the name
     * @param keyType the key class
     * @param valueType the value class
     * @return this builder
     * @throws IllegalArgumentException if the name is invalid or taken
     */
    public Builder keyValue(String name, Class<?> keyType, Class<?> valueType) {
      KeyValueSpec<?, ?> spec = new KeyValueSpec<>(name, keyType, valueType);
      Preconditions.checkArgument(keyValues.putIfAbsent(name, spec) == null,
          "key-value '%s' is declared twice", name);
      return this;
    }

    /**
     * The schema declared so far.
     *
     * @return the schema
     * @throws IllegalArgumentException if a name is used by two kinds
     */
    public Schema build() {
      return new Schema(collections, queues, keyValues);
    }
  }
}
