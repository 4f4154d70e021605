package dev.ledger.core;

import java.util.List;

/**
 * A set of ledgers, one per root id. Implementations: {@code FileLedgerStore} (durable, in
 * a directory; safe across threads and processes) and {@code InMemoryLedgerStore} (same
 * contract, no disk).
 *
 * <p>Thread-safe. Closing the store makes every ledger it handed out throw
 * {@link StoreClosedException}; close is idempotent.
 */
public interface LedgerStore extends AutoCloseable {
  /**
   * The ledger of {@code rootId}, viewing its state as {@code stateType} (a Jackson-mapped
   * class, or {@code JsonNode}). Touches no file: a ledger exists once committed to.
   *
   * @throws InvalidIdentifierException if the root id is not a valid identifier
   *     (see {@code dev.ledger.core.internal.io.Identifiers})
   */
  <S> Ledger<S> ledger(String rootId, Class<S> stateType);

  /** Root ids of every ledger committed to, in sorted order. */
  List<String> rootIds();

  /** The options this store runs with. */
  LedgerOptions options();

  /**
   * Closes the store: writes a final checkpoint of each ledger written through it and
   * releases files. Commits in flight on other threads finish first.
   */
  @Override
  void close();
}
