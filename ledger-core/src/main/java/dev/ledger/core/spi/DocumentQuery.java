package dev.ledger.core.spi;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.common.base.Preconditions;
import java.util.List;

/**
 * A filter over the documents of one collection, in a form a backend can run as its own query
 * (see {@link PatchLog#queryDocuments}). The caller has checked fields and operands; the
 * backend must match exactly as the caller's in-memory engine does, or decline the query.
 *
 * <p>A document matches when every term of every {@code must} set holds and then, when
 * {@code conditions} is not empty, all of them hold ({@code any == false}) or one of them
 * does ({@code any == true}). Matches come in insertion order (ordinal ascending).
 *
 * @param collection the collection
 * @param conditions the terms combined by {@code any}
 * @param any true: one of {@code conditions} must hold; false: all of them
 * @param must sets of terms that must all hold
 * @param offset matches skipped before the page, at least 0
 * @param limit the most matches returned, or -1 for all
 */
public record DocumentQuery(String collection, List<Term> conditions, boolean any,
    List<List<Term>> must, int offset, int limit) {

  /**
   * Checks and copies the query.
   *
   * @param collection the collection
   * @param conditions the terms combined by any
   * @param any whether one condition suffices
   * @param must sets of terms that must all hold
   * @param offset matches skipped
   * @param limit the most matches returned, or -1
   * @throws NullPointerException if a component or a term is null
   * @throws IllegalArgumentException if {@code offset} is negative or {@code limit} below -1
   */
  public DocumentQuery {
    Preconditions.checkNotNull(collection, "collection");
    conditions = List.copyOf(conditions);
    must = must.stream().map(List::copyOf).toList();
    Preconditions.checkArgument(offset >= 0, "offset must be >= 0: %s", offset);
    Preconditions.checkArgument(limit >= -1, "limit must be >= -1: %s", limit);
  }

  /** What a term tests. */
  public enum Operator {
    /**
     * The field equals one of {@code values} (JSON equality, numbers by value); a JSON null
     * value matches a missing or null field.
     */
    EQUALS,
    /**
     * A string field contains the single string value as a case-sensitive substring, or an
     * array field has an element equal to the single value.
     */
    CONTAINS
  }

  /**
   * One test of one field.
   *
   * @param path the field's path from the document's root, one name per step; a step
   *     through anything but an object finds no value
   * @param operator what is tested
   * @param values the operands, scalars or JSON null; one for {@code CONTAINS}
   */
  public record Term(List<String> path, Operator operator, List<JsonNode> values) {
    /**
     * Checks and copies the term.
     *
     * @param path the path
     * @param operator the operator
     * @param values the operands
     * @throws NullPointerException if a component or an element is null
     * @throws IllegalArgumentException if the path is empty or {@code CONTAINS} has not
     *     exactly one value
     */
    public Term {
      path = List.copyOf(path);
      Preconditions.checkArgument(!path.isEmpty(), "a term needs a path");
      Preconditions.checkNotNull(operator, "operator");
      values = List.copyOf(values);
      Preconditions.checkArgument(operator != Operator.CONTAINS || values.size() == 1,
          "CONTAINS takes one value, got %s", values.size());
    }
  }

  /**
   * The matches of a query at one revision.
   *
   * @param rows the page of matches, in insertion order
   * @param total the number of matches before {@code offset} and {@code limit}
   */
  public record Page(List<DocumentRow> rows, long total) {
    /**
     * Copies the rows.
     *
     * @param rows the page
     * @param total the matches before paging
     * @throws NullPointerException if {@code rows} is null
     */
    public Page {
      rows = List.copyOf(rows);
    }
  }
}
