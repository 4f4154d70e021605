package dev.ledger.collections;

import java.util.List;

/**
 * One page of a query's matches.
 *
 * @param items the documents of the page, in query order; unmodifiable
 * @param total how many documents matched before paging
 * @param <T> the document type
 */
public record QueryResult<T>(List<T> items, long total) {
  /**
   * Copies the items.
   *
   * @param items the documents
   * @param total the match count
   * @throws NullPointerException if {@code items} or one of them is null
   */
  public QueryResult {
    items = List.copyOf(items);
  }
}
