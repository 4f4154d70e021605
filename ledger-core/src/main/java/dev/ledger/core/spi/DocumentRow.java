package dev.ledger.core.spi;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.common.base.Preconditions;

/**
 * One document of a layer that keeps keyed documents in a ledger's state (the collection
 * store), as a backend with a documents table stores it beside the patch that wrote it (see
 * {@link PatchLog#appendPatch(PatchRequest, java.util.List)}).
 *
 * @param collection the collection it belongs to
 * @param key its key, unique in the collection
 * @param ordinal its insertion ordinal in the collection: ties in a query keep this order
 * @param document the whole document, an object; null when the commit removed the key
 */
public record DocumentRow(String collection, String key, long ordinal, JsonNode document) {
  /**
   * Checks the row.
   *
   * @param collection the collection
   * @param key the key
   * @param ordinal the insertion ordinal
   * @param document the document, or null when removed
   * @throws NullPointerException if {@code collection} or {@code key} is null
   * @throws IllegalArgumentException if {@code document} is present and not an object
   */
  public DocumentRow {
    Preconditions.checkNotNull(collection, "collection");
    Preconditions.checkNotNull(key, "key");
    Preconditions.checkArgument(document == null || document.isObject(),
        "document of key %s in collection %s must be an object, was %s", key, collection,
        document == null ? null : document.getNodeType());
  }
}
