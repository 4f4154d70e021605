package dev.ledger.core;

import com.fasterxml.jackson.core.type.TypeReference;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.Optional;

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
   * One page of the root ids of ledgers committed to, in sorted order ({@link String}
   * order, which for the characters a root id may hold is ASCII order), after
   * {@code after} (exclusive). Pass {@link RootIdCursor#START} for the first page and each
   * page's {@link RootIdPage#nextCursor()} for the next; the last page has
   * {@code hasMore() == false}. Pages are not a snapshot: a ledger first committed to while
   * paging appears on a later page if its id sorts after the cursor, and not at all if it
   * sorts before; an id is never listed twice and none committed to before the first page
   * was read is skipped.
   *
   * <p>Cost on files: each page lists the store's {@code ledgers} directory once (names
   * only, keeping the {@code limit + 1} smallest after the cursor) and checks only those
   * ledgers' files, so paging through {@code n} ledgers costs {@code n / limit} listings.
   *
   * @param after the cursor to read after; {@link RootIdCursor#START} for the first page
   * @param limit the largest number of root ids to return, 1 to 1000
   * @return the page
   * @throws NullPointerException if {@code after} is null
   * @throws IllegalArgumentException if {@code limit} is not between 1 and 1000
   * @throws InvalidCursorException if {@code after} is not a root id cursor
   * @throws StoreClosedException if the store is closed
   * @throws LedgerIOException if the store's directory cannot be listed
   * @throws SymbolicLinkException if a listed ledger's directory is a symbolic link
   */
  RootIdPage rootIds(RootIdCursor after, int limit);

  /**
   * Whether the ledger of {@code rootId} was ever committed to, without reading its state or
   * journal (on files: four {@code stat}s at most). Read-only stores answer too.
   *
   * @param rootId the root id, under the rules of {@link #ledger(String, StateType)}
   * @return true once a commit of the ledger was acknowledged
   * @throws NullPointerException if {@code rootId} is null
   * @throws InvalidIdentifierException if the root id breaks a rule of
   *     {@link #ledger(String, StateType)}
   * @throws StoreClosedException if the store is closed
   * @throws SymbolicLinkException if the ledger's directory is a symbolic link
   */
  boolean exists(String rootId);

  /**
   * Where the ledger of {@code rootId} stands: its latest revision, the number of events
   * committed and the time of the latest commit, without mapping its state to any type. It
   * agrees with {@link Ledger#load()} read at the same moment.
   *
   * <p>Cost on files: when this store saw the latest commit already (it wrote it, or a read
   * since found it), a {@code stat} and at most a one-byte read. Otherwise the header fields
   * of {@code state.json} (the file is read and tokenized, but its state builds no tree) and
   * the journal records after the checkpoint, each read and checked as {@code load()} reads
   * them: at most the checkpoint interval of records when the writer closes cleanly.
   *
   * @param rootId the root id, under the rules of {@link #ledger(String, StateType)}
   * @return the head, or empty if the ledger was never committed to
   * @throws NullPointerException if {@code rootId} is null
   * @throws InvalidIdentifierException if the root id breaks a rule of
   *     {@link #ledger(String, StateType)}
   * @throws StoreClosedException if the store is closed
   * @throws CorruptLedgerException if the checkpoint or the journal is damaged
   * @throws LedgerIOException if they cannot be read
   * @throws SymbolicLinkException if a file or directory of the ledger is a symbolic link
   */
  Optional<LedgerHead> head(String rootId);

  /**
   * Writes the ledger of {@code rootId} to {@code out} as an export: JSON Lines, a header
   * line then one line per commit, the same format from every store, so that a ledger moves
   * between stores (a file store's ledger into an in-memory store for a test, and back).
   *
   * <pre>
   * {"crc32c":"…","export":{"exportedAt":…,"format":1,"kind":"dev.ledger.export",
   *                         "recordFormat":2,"revisions":N,"root":"run-1"}}
   * {"crc32c":"…","commit":{…revision 1: committedAt, events with ids and sequences,
   *                          command id and digest, state or merge patch, stateVersion}}
   * …                                                       (N commit lines in all)
   * </pre>
   * Each line carries the CRC-32C of its JSON value; the commit lines are the journal's own
   * lines. The header's {@code exportedAt} is the store's clock, so with a fixed clock an
   * export is byte-for-byte deterministic.
   *
   * <p>Reads like any reader: takes no lock and blocks no writer, and works on a read-only
   * store. The export is the consistent prefix up to the revision committed when the call
   * starts; commits made while it runs are left out. {@code out} is flushed, not closed.
   *
   * @param rootId the ledger
   * @param out where the export is written
   * @return the last revision exported (the header's revision count)
   * @throws NullPointerException if an argument is null
   * @throws InvalidIdentifierException if {@code rootId} is not a valid root id
   * @throws LedgerNotFoundException if the store holds no such ledger
   * @throws CorruptLedgerException if the ledger is damaged before the exported revision
   * @throws HistoryTruncatedException if a retention removed the ledger's early history: an
   *     export holds every revision from 1, so it is refused before anything is written
   * @throws LedgerIOException if the ledger cannot be read or {@code out} cannot be written
   *     (what reached {@code out} is then an incomplete export, which an import refuses)
   * @throws StoreClosedException if the store is closed
   */
  long export(String rootId, OutputStream out);

  /**
   * Rebuilds in this store the ledger that {@code in} holds as an export written by
   * {@link #export} (of this store or another): the same revisions, commit times, events
   * (ids, sequences, times, payloads, command and operation ids), command index (a retried
   * command replays its original result) and state, under the root id the export names.
   *
   * <p>The whole input is checked before the ledger appears: the header (kind, format,
   * checksum), every line's checksum, the record count the header names (a truncated input
   * is refused), revision and sequence continuity, event ids. The ledger then appears at
   * once, whole: readers see no ledger or all of it (each store documents its commit point).
   * A refused import changes nothing in the store. Reads {@code in} to its end; does not
   * close it.
   *
   * @param in the export
   * @return what was imported
   * @throws NullPointerException if {@code in} is null
   * @throws LedgerExistsException if the store already holds a ledger for the export's root
   *     id
   * @throws InvalidExportException if the input is not a complete, valid export this library
   *     reads (the message names the line)
   * @throws ReadOnlyStoreException if the store is read-only
   * @throws LedgerIOException if {@code in} cannot be read or the store cannot be written
   * @throws StoreClosedException if the store is closed
   */
  ImportResult importLedger(InputStream in);

  /**
   * Deletes the ledger of {@code rootId}: its state, journal and command index. Taken under
   * the ledger's writer lock, waiting up to the options' lock timeout like a commit; a
   * writer that holds it longer (another process, or another store or thread of this one)
   * makes the delete refuse, changing nothing. The removal is atomic: at any crash the
   * ledger is either whole or gone (each store documents its commit point).
   *
   * <p>Afterwards the root id is free: {@link #exists} is false, the id leaves
   * {@link #rootIds()}, and every {@link Ledger} of this store for the id sees a ledger that
   * was never committed to ({@code load()} throws {@link LedgerNotFoundException}, a commit
   * expecting {@link Ledger#NO_REVISION} starts a new ledger, one expecting any other
   * revision gets a {@link RevisionConflictException} with actual revision 0, events and
   * commands of the old ledger are gone).
   *
   * @param rootId the ledger to delete, under the rules of {@link #ledger(String, StateType)}
   * @return true if the ledger existed (was committed to) and is now deleted; false if there
   *     was nothing to delete
   * @throws NullPointerException if {@code rootId} is null
   * @throws InvalidIdentifierException if the root id breaks a rule of
   *     {@link #ledger(String, StateType)}
   * @throws LedgerBusyException if another writer held the ledger's lock past the deadline
   * @throws ReadOnlyStoreException if the store is read-only
   * @throws LedgerIOException if the store cannot be written (the ledger is then whole, or
   *     deleted if the error came after the commit point, as the message says)
   * @throws SymbolicLinkException if the ledger's directory is a symbolic link
   * @throws StoreClosedException if the store is closed
   */
  boolean delete(String rootId);

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
