package dev.ledger.collections;

import com.google.common.base.Preconditions;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A query over one collection: conditions, an optional sort, and a page. Immutable.
 *
 * <p><b>Filter.</b> The {@link #conditions} combine by {@link #aggregate}: all of them
 * ({@code AND}) or any of them ({@code OR}); an empty list matches every document under both.
 * Each set in {@link #must} is ANDed in whatever the aggregate. The same operator twice on one
 * field within the conditions or within one {@code must} set is refused.
 *
 * <p><b>Order.</b> Without a sort, documents come in insertion order (an update keeps a
 * document's place; a delete and a new insert moves it to the end). With a sort on one field,
 * numbers compare by value, strings by UTF-16 code units, booleans false first; values of
 * different JSON types order as numbers, strings, booleans, others. A missing or null field
 * sorts <b>last ascending and first descending</b>. Ties keep insertion order in both
 * directions.
 *
 * <p><b>Page.</b> {@link QueryResult#total} of the result counts every match before paging;
 * {@code offset} skips matches, {@code limit} caps the items ({@code -1}: no cap; {@code 0}:
 * no items, only the total).
 *
 * <p>Field paths are checked against the collection's document type when the query runs, and
 * an unknown one is refused before any document is read.
 *
 * @param conditions the per-field conditions
 * @param aggregate how the conditions combine
 * @param must condition sets always ANDed in
 * @param sort the sort, or null for insertion order
 * @param limit at most this many items; -1 for no limit
 * @param offset matches skipped before the first item; at least 0
 */
public record Query(List<Condition> conditions, Aggregate aggregate, List<List<Condition>> must,
    Sort sort, int limit, int offset) {

  /** How the conditions of a query combine. */
  public enum Aggregate {
    /** Every condition holds. */
    AND,
    /** At least one condition holds (or there are none). */
    OR
  }

  /** A sort direction. */
  public enum Direction {
    /** Smallest first; missing values last. */
    ASC,
    /** Largest first; missing values first. */
    DESC
  }

  /**
   * A sort on one field.
   *
   * @param field the dotted field path
   * @param direction the direction
   */
  public record Sort(String field, Direction direction) {
    /**
     * Checks.
     *
     * @param field the dotted field path
     * @param direction the direction
     * @throws NullPointerException if an argument is null
     * @throws InvalidQueryException if the path is malformed
     */
    public Sort {
      Preconditions.checkNotNull(field, "field");
      Preconditions.checkNotNull(direction, "direction");
      Condition.exact(field, null); // the same path rules
    }
  }

  /**
   * Copies and checks.
   *
   * @param conditions the conditions
   * @param aggregate the aggregate
   * @param must the must sets
   * @param sort the sort, or null
   * @param limit the limit
   * @param offset the offset
   * @throws InvalidQueryException if the limit is below -1, the offset negative, or an
   *     operator is repeated on one field within the conditions or one must set
   * @throws NullPointerException if a list, a condition or the aggregate is null
   */
  public Query {
    conditions = List.copyOf(conditions);
    Preconditions.checkNotNull(aggregate, "aggregate");
    must = must.stream().map(List::copyOf).toList();
    if (limit < -1) {
      throw new InvalidQueryException(null, "limit", "must be -1 (no limit) or >= 0, was "
          + limit);
    }
    if (offset < 0) {
      throw new InvalidQueryException(null, "offset", "must be >= 0, was " + offset);
    }
    distinct(conditions);
    for (List<Condition> set : must) {
      distinct(set);
    }
  }

  private static void distinct(List<Condition> conditions) {
    Set<String> seen = new HashSet<>();
    for (Condition c : conditions) {
      if (!seen.add(c.field() + '\u0000' + c.operator())) {
        throw new InvalidQueryException(null, c.field(), "operator "
            + c.operator().name().toLowerCase(Locale.ROOT) + " is given twice");
      }
    }
  }

  /**
   * Every document, in insertion order.
   *
   * @return the query
   */
  public static Query all() {
    return builder().build();
  }

  /**
   * A builder of a query matching every document, unsorted, unpaged.
   *
   * @return the builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link Query}; not thread-safe. */
  public static final class Builder {
    private final List<Condition> conditions = new ArrayList<>();
    private final List<List<Condition>> must = new ArrayList<>();
    private Aggregate aggregate = Aggregate.AND;
    private Sort sort;
    private int limit = -1;
    private int offset;

    private Builder() {}

    /**
     * Adds a condition.
     *
     * @param condition the condition
     * @return this builder
     */
    public Builder where(Condition condition) {
      conditions.add(Preconditions.checkNotNull(condition, "condition"));
      return this;
    }

    /**
     * Adds {@link Condition#exact}.
     *
     * @param field the dotted field path
     * @param value the value, or null for a missing field
     * @return this builder
     * @throws InvalidQueryException if the path is malformed
     */
    public Builder exact(String field, Object value) {
      return where(Condition.exact(field, value));
    }

    /**
     * Adds {@link Condition#within}.
     *
     * @param field the dotted field path
     * @param values a collection or array of values
     * @return this builder
     * @throws InvalidQueryException if the path or the values are malformed
     */
    public Builder within(String field, Object values) {
      return where(Condition.within(field, values));
    }

    /**
     * Adds {@link Condition#contains}.
     *
     * @param field the dotted field path
     * @param value the substring or element
     * @return this builder
     * @throws InvalidQueryException if the path is malformed or the value null
     */
    public Builder contains(String field, Object value) {
      return where(Condition.contains(field, value));
    }

    /**
     * Combines the conditions with OR.
     *
     * @return this builder
     */
    public Builder or() {
      aggregate = Aggregate.OR;
      return this;
    }

    /**
     * Combines the conditions with AND (the default).
     *
     * @return this builder
     */
    public Builder and() {
      aggregate = Aggregate.AND;
      return this;
    }

    /**
     * Adds a set of conditions that must all hold, whatever the aggregate.
     *
     * @param set the conditions
     * @return this builder
     */
    public Builder must(List<Condition> set) {
      must.add(List.copyOf(set));
      return this;
    }

    /**
     * Sorts ascending by a field (missing values last).
     *
     * @param field the dotted field path
     * @return this builder
     */
    public Builder sortAscending(String field) {
      sort = new Sort(field, Direction.ASC);
      return this;
    }

    /**
     * Sorts descending by a field (missing values first).
     *
     * @param field the dotted field path
     * @return this builder
     */
    public Builder sortDescending(String field) {
      sort = new Sort(field, Direction.DESC);
      return this;
    }

    /**
     * Caps the items returned.
     *
     * @param value at most this many; -1 for no cap, 0 for only the total
     * @return this builder
     */
    public Builder limit(int value) {
      limit = value;
      return this;
    }

    /**
     * Skips matches before the first item.
     *
     * @param value how many; at least 0
     * @return this builder
     */
    public Builder offset(int value) {
      offset = value;
      return this;
    }

    /**
     * Adds conditions given in the reference store's filter shape: each key a field path
     * mapped to {@code {"exact"|"within"|"contains": value}}, plus {@code "_aggregate"}
     * ({@code "and"} or {@code "or"}) and {@code "_must"} (one such map or a list of them).
     *
     * @param filter the filter map
     * @return this builder
     * @throws InvalidQueryException for an unknown operator, a bad aggregate, a must that is
     *     not a map or list of maps, or a field whose operators are not a map
     */
    public Builder filter(Map<String, ?> filter) {
      Preconditions.checkNotNull(filter, "filter");
      for (Map.Entry<String, ?> entry : filter.entrySet()) {
        switch (entry.getKey()) {
          case "_aggregate" -> {
            Object value = entry.getValue();
            if ("and".equals(value)) {
              aggregate = Aggregate.AND;
            } else if ("or".equals(value)) {
              aggregate = Aggregate.OR;
            } else {
              throw new InvalidQueryException(null, "_aggregate",
                  "must be \"and\" or \"or\", was " + value);
            }
          }
          case "_must" -> {
            Object value = entry.getValue();
            if (value instanceof Map<?, ?> set) {
              must.add(parse(set));
            } else if (value instanceof Collection<?> sets) {
              for (Object set : sets) {
                if (!(set instanceof Map<?, ?> map)) {
                  throw new InvalidQueryException(null, "_must",
                      "must be a map of conditions or a list of them");
                }
                must.add(parse(map));
              }
            } else {
              throw new InvalidQueryException(null, "_must",
                  "must be a map of conditions or a list of them");
            }
          }
          default -> conditions.addAll(parse(Map.of(entry.getKey(), entry.getValue())));
        }
      }
      return this;
    }

    private static List<Condition> parse(Map<?, ?> fields) {
      List<Condition> parsed = new ArrayList<>();
      for (Map.Entry<?, ?> field : fields.entrySet()) {
        String name = String.valueOf(field.getKey());
        if (!(field.getValue() instanceof Map<?, ?> ops)) {
          throw new InvalidQueryException(null, name,
              "conditions must be a map of operator to value");
        }
        for (Map.Entry<?, ?> op : ops.entrySet()) {
          Object operator = op.getKey();
          if ("exact".equals(operator)) {
            parsed.add(Condition.exact(name, op.getValue()));
          } else if ("within".equals(operator)) {
            parsed.add(Condition.within(name, op.getValue()));
          } else if ("contains".equals(operator)) {
            parsed.add(Condition.contains(name, op.getValue()));
          } else {
            throw new InvalidQueryException(null, name, "unknown operator '" + operator + "'");
          }
        }
      }
      return parsed;
    }

    /**
     * The query.
     *
     * @return the query
     * @throws InvalidQueryException if the limit, offset or conditions are malformed
     */
    public Query build() {
      return new Query(conditions, aggregate, must, sort, limit, offset);
    }
  }
}
