package dev.ledger.collections;

import java.util.List;

/**
 * One collection of one partition inside a transaction: Jackson-mapped documents keyed by a
 * primary key of one or more of their fields. Reads see the transaction's own writes. Every
 * write is checked whole before anything changes: a call that fails (a duplicate, a missing
 * document, a bad value) throws and leaves the transaction as it was; the exception then
 * normally ends the transaction, which writes nothing.
 *
 * <p><b>Documents</b> are stored as JSON objects with their null fields removed, because a
 * merge patch cannot store a null: a field that was null reads back as missing (null for a
 * record component). Key fields must be a string, number or boolean.
 *
 * @param <T> the document type
 */
public interface Collection<T> extends CollectionReader<T> {
  /**
   * Inserts documents.
   *
   * @param items the documents
   * @throws DuplicateKeyException if a key is already present or repeated in {@code items};
   *     nothing is inserted
   * @throws InvalidValueException if a document's key is missing or not a scalar
   * @throws dev.ledger.core.LimitExceededException if a document exceeds the size limit
   */
  void insert(List<T> items);

  /**
   * Replaces documents whole, by key.
   *
   * @param items the new documents
   * @return the documents as stored
   * @throws DocumentNotFoundException if a key is missing; nothing is updated
   * @throws InvalidValueException if a key is malformed
   * @throws dev.ledger.core.LimitExceededException if a document exceeds the size limit
   */
  List<T> update(List<T> items);

  /**
   * Sets only the named top-level fields of documents, by key.
   *
   * @param items documents carrying the key and the new field values
   * @param fields the top-level field names to copy from each item
   * @return the documents as stored
   * @throws DocumentNotFoundException if a key is missing; nothing is updated
   * @throws InvalidQueryException if a field name is not a field of the type
   * @throws InvalidValueException if a key is malformed
   * @throws dev.ledger.core.LimitExceededException if a document exceeds the size limit
   */
  List<T> update(List<T> items, List<String> fields);

  /**
   * {@link #update(List, List)} without handing the stored documents back: the same checks,
   * the same writes, and the same failures, but the documents as stored are not mapped back
   * to {@code T} (for a tree type, not copied), which a caller that knows what it wrote does
   * not need. Like every write, it takes effect when the transaction commits.
   *
   * @param items documents carrying the key and the new field values
   * @param fields the top-level field names to copy from each item
   * @throws DocumentNotFoundException if a key is missing; nothing is updated
   * @throws InvalidQueryException if a field name is not a field of the type
   * @throws InvalidValueException if a key is malformed
   * @throws dev.ledger.core.LimitExceededException if a document exceeds the size limit
   */
  default void updateFields(List<T> items, List<String> fields) {
    update(items, fields);
  }

  /**
   * Replaces documents whole, or inserts them.
   *
   * @param items the documents
   * @return the documents as stored
   * @throws InvalidValueException if a key is malformed
   * @throws dev.ledger.core.LimitExceededException if a document exceeds the size limit
   */
  List<T> upsert(List<T> items);

  /**
   * Sets the named fields of existing documents, or inserts missing documents whole (the
   * other fields are set on insert only). With no fields, an existing document is left as
   * it is.
   *
   * @param items the documents
   * @param fields the top-level field names to set on existing documents
   * @return the documents as stored
   * @throws InvalidQueryException if a field name is not a field of the type
   * @throws InvalidValueException if a key is malformed
   * @throws dev.ledger.core.LimitExceededException if a document exceeds the size limit
   */
  List<T> upsert(List<T> items, List<String> fields);

  /**
   * Deletes documents by the key fields of {@code items}; other fields are ignored, and so
   * are keys that are not present.
   *
   * @param items documents carrying the keys
   * @throws InvalidValueException if a key is malformed
   */
  void delete(List<T> items);
}
