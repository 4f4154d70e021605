package dev.ledger.core;

import com.fasterxml.jackson.core.type.TypeReference;
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
   * The ledger of {@code rootId}, viewing its state as {@code stateType}: the Java type its
   * state maps to with the store's mapper ({@link LedgerOptions#withMapper}), the state
   * version commits record, and the upcasters that bring older states up to it. Touches no
   * file: a ledger exists once committed to. Any number of views, of any types, may share one
   * ledger.
   *
   * @param rootId the ledger's root id: 1 to 128 characters from {@code A-Z a-z 0-9 . _ -},
   *     not starting with {@code .} or {@code -}, not ending with {@code .}, without
   *     {@code ..}, and not a Windows device name ({@code CON}, {@code nul.txt},
   *     {@code com1}, ...) in any case
   * @param stateType how states map to values, their version and upcasters
   * @param <S> the state type
   * @return the ledger
   * @throws NullPointerException if {@code rootId} or {@code stateType} is null
   * @throws InvalidIdentifierException if the root id breaks a rule above (the message names
   *     the rule)
   * @throws StoreClosedException if the store is closed
   */
  <S> Ledger<S> ledger(String rootId, StateType<S> stateType);

  /**
   * The ledger of {@code rootId} with states mapped to {@code stateType} (a Jackson-mapped
   * class, a record, or {@code JsonNode}) at state version 0: {@code
   * ledger(rootId, StateType.of(stateType))}.
   *
   * @param rootId the root id
   * @param stateType the state class
   * @param <S> the state type
   * @return the ledger
   * @throws InvalidIdentifierException if the root id breaks a rule of
   *     {@link #ledger(String, StateType)}
   * @throws NullPointerException if {@code rootId} or {@code stateType} is null
   * @throws StoreClosedException if the store is closed
   */
  default <S> Ledger<S> ledger(String rootId, Class<S> stateType) {
    return ledger(rootId, StateType.of(stateType));
  }

  /**
   * The ledger of {@code rootId} with states mapped to a generic type, such as
   * {@code new TypeReference<Map<String, Task>>() {}}, at state version 0.
   *
   * @param rootId the root id
   * @param stateType the state type reference
   * @param <S> the state type
   * @return the ledger
   * @throws InvalidIdentifierException if the root id breaks a rule of
   *     {@link #ledger(String, StateType)}
   * @throws NullPointerException if {@code rootId} or {@code stateType} is null
   * @throws StoreClosedException if the store is closed
   */
  default <S> Ledger<S> ledger(String rootId, TypeReference<S> stateType) {
    return ledger(rootId, StateType.of(stateType));
  }

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
