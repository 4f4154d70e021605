package dev.ledger.collections;

import java.util.Optional;

/**
 * The reads of one collection of one partition, as of the view or transaction that handed it
 * out. Valid only inside that callback; not thread-safe.
 *
 * @param <T> the document type
 */
public interface CollectionReader<T> {
  /**
   * The document with a primary key.
   *
   * @param key the key values, in the order the collection declares its key fields
   * @return the document, or empty
   * @throws InvalidValueException if the key has the wrong number of values or a value that
   *     is not a string, number or boolean
   */
  Optional<T> get(Key key);

  /**
   * The best match of a query: its first item under its sort (its limit and offset are
   * ignored).
   *
   * @param query the query
   * @return the first match, or empty when nothing matches
   * @throws InvalidQueryException if the query names an unknown field or is malformed
   */
  Optional<T> get(Query query);

  /**
   * One page of a query's matches and their total.
   *
   * @param query the query
   * @return the page
   * @throws InvalidQueryException if the query names an unknown field or is malformed;
   *     checked before any document is read
   */
  QueryResult<T> query(Query query);

  /**
   * The number of documents.
   *
   * @return the count
   */
  long size();
}
