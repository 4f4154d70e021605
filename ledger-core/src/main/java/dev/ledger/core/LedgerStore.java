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
   * @param rootId the ledger's root id: 1 to 128 characters from {@code A-Z a-z 0-9 . _ -},
   *     not starting with {@code .} or {@code -}, not ending with {@code .}, without
   *     {@code ..}, and not a Windows device name ({@code CON}, {@code nul.txt},
   *     {@code com1}, ...) in any case
   * @param stateType the class states are mapped to
   * @param <S> the state type
   * @return the ledger
   * @throws NullPointerException if {@code rootId} or {@code stateType} is null
   * @throws InvalidIdentifierException if the root id breaks a rule above (the message names
   *     the rule)
   * @throws StoreClosedException if the store is closed
   */
  <S> Ledger<S> ledger(String rootId, Class<S> stateType);

  /**
   * Root ids of every ledger committed to, in sorted order.
   *
   * @return the root ids
   * @throws StoreClosedException if the store is closed
   * @throws LedgerIOException if the store's directory cannot be listed
   * @throws SymbolicLinkException if a ledger's directory is a symbolic link
   */
  List<String> rootIds();

  /**
   * The options this store runs with.
   *
   * @return the options
   */
  LedgerOptions options();

  /**
   * Closes the store: writes a final checkpoint of each ledger written through it and
   * releases files. Commits in flight on other threads finish first.
   *
   * @throws LedgerIOException if a final checkpoint cannot be written (the commits are
   *     durable in the journal already; the store is closed all the same)
   */
  @Override
  void close();
}
