package dev.ledger.collections;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

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

  /**
   * Calls {@code action} once for each document, in insertion order, with a new JSON object
   * that holds only the named top-level fields the document has, in the order named (a field
   * the document lacks, or holds as null, is absent; no other member is there). For a pass
   * over a whole collection that needs a few fields of each document, such as a caller's own
   * in-memory index: a document still held as the bytes of its checkpoint (after a cold open)
   * is read for those fields and stays bytes, where {@link #query} builds each document's
   * whole tree and the view keeps it. Sees the transaction's own writes, as every read here
   * does. The documents are gathered before the first call, so {@code action} may write to
   * the collection (inside a transaction) without changing what this pass visits.
   *
   * @param fields top-level field names of the document type, at least one, none twice
   * @param action called with each projection; the object is the caller's to keep or change
   * @throws IllegalArgumentException if {@code fields} is empty or names a field twice
   * @throws InvalidQueryException if a name is not a field of the document type, before any
   *     document is read
   * @throws dev.ledger.core.CorruptLedgerException if a document's stored bytes do not parse
   */
  void project(List<String> fields, Consumer<ObjectNode> action);
}
