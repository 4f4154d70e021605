package dev.ledger.collections;

import com.google.common.base.Preconditions;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

/**
 * One condition on one field of a document, by dotted path ({@code "meta.owner"}). Values are
 * mapped to JSON with the store's mapper and compared as JSON: numbers by value
 * ({@code 1 == 1.0}), strings case-sensitively, objects and arrays by equality.
 *
 * <ul>
 *   <li>{@link Operator#EXACT}: the field equals the value; a null value matches a missing or
 *       null field (stored documents never hold nulls: see
 *       {@link dev.ledger.collections.Collection}).
 *   <li>{@link Operator#WITHIN}: the field equals any of the values (null among them matches a
 *       missing field). The value is a list.
 *   <li>{@link Operator#CONTAINS}: on a string field, a case-sensitive substring (the value is
 *       a string); on an array field, an element equal to the value; false on any other
 *       field. Never a regular expression. A null value is refused.
 * </ul>
 *
 * @param field the dotted field path
 * @param operator the operator
 * @param value the operand: any value for {@code EXACT}, an unmodifiable list for
 *     {@code WITHIN}, a non-null value for {@code CONTAINS}
 */
public record Condition(String field, Operator operator, Object value) {

  /** How a condition compares its field with its value. */
  public enum Operator {
    /** Equal to the value. */
    EXACT,
    /** Equal to one of the values. */
    WITHIN,
    /** A substring of a string, or an element of an array. */
    CONTAINS
  }

  /**
   * Checks the field path and the operand.
   *
   * @param field the dotted field path
   * @param operator the operator
   * @param value the operand
   * @throws InvalidQueryException if the path has an empty segment, a {@code WITHIN} operand
   *     is not a collection or array, or a {@code CONTAINS} operand is null
   * @throws NullPointerException if {@code field} or {@code operator} is null
   */
  public Condition {
    Preconditions.checkNotNull(field, "field");
    Preconditions.checkNotNull(operator, "operator");
    if (field.isEmpty() || field.startsWith(".") || field.endsWith(".")
        || field.contains("..")) {
      throw new InvalidQueryException(null, field, "a field path is names joined by dots");
    }
    if (operator == Operator.WITHIN) {
      value = asList(field, value);
    } else if (operator == Operator.CONTAINS && value == null) {
      throw new InvalidQueryException(null, field, "contains needs a value, not null");
    }
  }

  private static List<Object> asList(String field, Object value) {
    List<Object> list = new ArrayList<>();
    if (value instanceof Collection<?> values) {
      list.addAll(values);
    } else if (value instanceof Object[] values) {
      Collections.addAll(list, values);
    } else {
      throw new InvalidQueryException(null, field, "within needs a list of values, got "
          + (value == null ? "null" : value.getClass().getSimpleName()));
    }
    return Collections.unmodifiableList(list);
  }

  /**
   * The field equals {@code value}; null matches a missing field.
   *
   * @param field the dotted field path
   * @param value the value, or null
   * @return the condition
   * @throws InvalidQueryException if the path is malformed
   */
  public static Condition exact(String field, Object value) {
    return new Condition(field, Operator.EXACT, value);
  }

  /**
   * The field equals one of {@code values}.
   *
   * @param field the dotted field path
   * @param values the values (a collection or an array)
   * @return the condition
   * @throws InvalidQueryException if the path is malformed or {@code values} is not a
   *     collection or array
   */
  public static Condition within(String field, Object values) {
    return new Condition(field, Operator.WITHIN, values);
  }

  /**
   * The string field contains {@code value}, or the array field holds it.
   *
   * @param field the dotted field path
   * @param value the substring or element
   * @return the condition
   * @throws InvalidQueryException if the path is malformed or {@code value} is null
   */
  public static Condition contains(String field, Object value) {
    return new Condition(field, Operator.CONTAINS, value);
  }
}
