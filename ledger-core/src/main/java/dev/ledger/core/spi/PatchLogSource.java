package dev.ledger.core.spi;

/**
 * A store that hands out {@link PatchLog}s: the built-in file and in-memory stores, and any
 * other store a layer such as the collection store should run on.
 */
public interface PatchLogSource {
  /**
   * The patch log of a root id, sharing the ledger (lock, journal, caches) that
   * {@link dev.ledger.core.LedgerStore#ledger} hands out for the same root.
   *
   * @param rootId a valid root id
   * @return the patch log; the store owns it and closes it with itself
   * @throws dev.ledger.core.InvalidIdentifierException if {@code rootId} is not a valid id
   * @throws dev.ledger.core.StoreClosedException if the store is closed
   */
  PatchLog patchLog(String rootId);

  /**
   * Declares secondary indexes over the documents of the collection store on this store, so
   * that a backend with a documents table creates them (idempotent; safe when several
   * processes open at once). The default does nothing.
   *
   * @param indexes per collection, the dotted paths of its indexed fields
   * @throws NullPointerException if {@code indexes} is null
   * @throws dev.ledger.core.LedgerException for the backend's own failures
   */
  default void declareDocumentIndexes(java.util.Map<String, java.util.List<String>> indexes) {
    java.util.Objects.requireNonNull(indexes, "indexes");
  }
}
