package dev.ledger.core;

import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * The durable state of one orchestration root: a state of type {@code S} with a revision,
 * and the journal of events recorded with its commits.
 *
 * <p><b>Revisions.</b> A ledger that was never committed to is at {@link #NO_REVISION}; each
 * commit adds one. A commit names the revision it read; any other current revision is a
 * {@link RevisionConflictException}. Among racing writers (threads or processes) exactly one
 * wins each revision.
 *
 * <p><b>Durability.</b> Under {@link Durability#SYNC}, when a commit returns it survives a
 * power cut; a commit that throws was not acknowledged (after an I/O error its outcome is
 * what the next {@link #load} shows). Commits are atomic: state, events and revision appear
 * together or not at all.
 *
 * <p><b>Threads.</b> Implementations are thread-safe. Reads take no lock and never see half
 * of a commit.
 *
 * <p><b>Errors.</b> A programming error (a null argument, a negative revision, a page limit
 * outside 1 to 1000, drafts with different command ids) throws {@link NullPointerException}
 * or {@link IllegalArgumentException} before anything is read or written. Every other failure
 * is a {@link LedgerException}: the ones a caller handles are listed on each method, and any
 * method may also throw {@link StoreClosedException} (the store was closed),
 * {@link LedgerIOException} (the disk failed), {@link CorruptLedgerException} or
 * {@link UnsupportedFormatException} (the ledger's files are damaged or newer than this
 * library) and {@link SymbolicLinkException} (a link inside the store).
 *
 * @param <S> the state type: any Jackson-mapped type (records included) or {@code JsonNode}
 */
public interface Ledger<S> {
  /** The revision of a ledger that has never been committed to. */
  long NO_REVISION = 0;

  /** The root id this ledger belongs to. */
  String rootId();

  /**
   * The state as of the latest commit.
   *
   * @throws LedgerNotFoundException if the ledger was never committed to
   * @throws CorruptLedgerException if its files are damaged (other than a torn tail)
   * @throws LedgerIOException if its files cannot be read
   */
  Versioned<S> load();

  /**
   * Like {@link #load}, but empty instead of throwing when the ledger does not exist.
   *
   * @throws CorruptLedgerException if its files are damaged (other than a torn tail)
   * @throws LedgerIOException if its files cannot be read
   */
  Optional<Versioned<S>> find();

  /**
   * Commits {@code newState} as revision {@code expectedRevision + 1}, recording
   * {@code events} with it.
   *
   * @param expectedRevision the revision the new state was derived from;
   *     {@link #NO_REVISION} to create the ledger
   * @throws RevisionConflictException if the current revision is another one
   * @throws CommandConflictException if the events' command id was recorded with other content
   * @throws LimitExceededException if the state or a payload exceeds the configured limit
   * @throws LockTimeoutException if another writer held the lock past the deadline
   * @throws ReadOnlyStoreException if the store was opened read-only
   * @throws LedgerFailedException if an earlier write of this ledger failed in this store
   * @throws LedgerIOException if writing fails (the commit's outcome is what the next
   *     {@link #load} shows)
   * @throws NullPointerException if {@code newState}, {@code events} or a draft is null
   * @throws IllegalArgumentException if {@code expectedRevision} is negative, drafts carry
   *     different command ids, or the state cannot be written as JSON (nested too deep)
   * @return the new revision and events; a replay of the original result when the command id
   *     was already recorded with the same content (nothing is written then)
   */
  CommitResult commit(long expectedRevision, S newState, List<EventDraft> events);

  /**
   * Varargs form of {@link #commit(long, Object, List)}, with the same errors.
   *
   * @throws NullPointerException if {@code newState}, {@code events} or a draft is null
   * @throws IllegalArgumentException if {@code expectedRevision} is negative
   */
  default CommitResult commit(long expectedRevision, S newState, EventDraft... events) {
    return commit(expectedRevision, newState, List.of(events));
  }

  /**
   * Read-modify-write: loads the state, applies {@code change}, commits with the revision it
   * read, and on a revision conflict starts over after a jittered exponential backoff, up to
   * the configured number of attempts. {@code change} may run several times and must have no
   * side effects.
   *
   * @throws LedgerNotFoundException if the ledger does not exist (create it with
   *     {@link #commit} and {@link #NO_REVISION})
   * @throws RevisionConflictException the last conflict, once the attempts are used up
   * @throws NullPointerException if {@code change}, {@code events}, a draft or the state
   *     {@code change} returns is null
   * @return the committed state and revision
   */
  Versioned<S> update(UnaryOperator<S> change, EventDraft... events);

  /**
   * Up to {@code limit} events committed after {@code after}, in sequence order.
   *
   * @param after a cursor from this ledger, or {@link Cursor#START}
   * @param limit 1 to 1000
   * @throws NullPointerException if {@code after} is null
   * @throws IllegalArgumentException if limit is out of range
   * @throws InvalidCursorException if the cursor is not a valid cursor of this ledger
   * @throws LedgerNotFoundException if the ledger does not exist and the cursor is not START
   *     (reading START of an absent ledger gives an empty page)
   */
  EventPage events(Cursor after, int limit);

  /**
   * Every event committed after {@code after}, read lazily for replay: memory stays bounded
   * by one commit record whatever the journal's length. The stream sees commits up to the
   * moment it reaches the end. It holds open files: close it (try-with-resources).
   *
   * @throws NullPointerException if {@code after} is null
   * @throws InvalidCursorException if the cursor is not a valid cursor of this ledger
   * @throws LedgerNotFoundException if the ledger does not exist and the cursor is not START
   */
  Stream<Event> replay(Cursor after);
}
