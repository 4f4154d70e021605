package dev.ledger.core;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;
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
 * <p><b>Commands.</b> A commit whose drafts carry a command id ({@link EventDraft#withCommandId})
 * is recorded once for the ledger's whole life, across restarts. A later commit with the same
 * id is compared by <em>intent</em>: the drafts' types, payloads (as canonical JSON) and
 * operation ids, in order. If they are equal, nothing is written and the original result is
 * returned ({@link CommitResult#replayed()}), whatever new state and expected revision the
 * retry carries: a command retried on a state re-derived after another writer's commit is the
 * same command. If they differ, the commit throws {@link CommandConflictException}. The new
 * state, the expected revision and the time are not compared; neither is the command id's
 * presence on each draft (the commit's command id applies to all its events). Commands
 * recorded before this rule (journal format 1, whose digest covered the state too) are
 * compared the same way, by the drafts they recorded. {@link #command} tells whether an id
 * was recorded and what it produced.
 *
 * <p><b>Durability.</b> Under {@link Durability#SYNC}, when a commit returns it survives a
 * power cut; a commit that throws was not acknowledged (after an I/O error its outcome is
 * what the next {@link #load} or {@link #command} shows). Commits are atomic: state, events
 * and revision appear together or not at all.
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
 * @param <S> the state type: any Jackson-mapped type (records included) or {@code JsonNode},
 *     as declared by the {@link StateType} the ledger was opened with
 */
public interface Ledger<S> {
  /** The revision of a ledger that has never been committed to. */
  long NO_REVISION = 0;

  /**
   * The root id this ledger belongs to.
   *
   * @return the root id
   */
  String rootId();

  /**
   * The state as of the latest commit, brought up to the {@link StateType}'s version by its
   * upcasters if it was written with an older one.
   *
   * @return the state, its revision and commit time
   * @throws LedgerNotFoundException if the ledger was never committed to
   * @throws StateMappingException if the stored state does not map to the state type (it
   *     names the revision and the field), or was written with a newer state version
   * @throws CorruptLedgerException if its files are damaged (other than a torn tail)
   * @throws LedgerIOException if its files cannot be read
   */
  Versioned<S> load();

  /**
   * Like {@link #load}, but empty instead of throwing when the ledger does not exist.
   *
   * @return the state, or empty if the ledger was never committed to
   * @throws StateMappingException if the stored state does not map to the state type
   * @throws CorruptLedgerException if its files are damaged (other than a torn tail)
   * @throws LedgerIOException if its files cannot be read
   */
  Optional<Versioned<S>> find();

  /**
   * Commits {@code newState} as revision {@code expectedRevision + 1}, recording
   * {@code events} with it, and the state type's version with the state.
   *
   * @param expectedRevision the revision the new state was derived from;
   *     {@link #NO_REVISION} to create the ledger
   * @param newState the new state
   * @param events the events to record, in order
   * @return the new revision and events; a replay of the original result when the command id
   *     was already recorded with the same drafts (nothing is written then)
   * @throws RevisionConflictException if the current revision is another one
   * @throws CommandConflictException if the events' command id was recorded with other drafts
   * @throws LimitExceededException if the state or a payload exceeds the configured limit
   * @throws LockTimeoutException if another writer held the lock past the deadline
   * @throws ReadOnlyStoreException if the store was opened read-only
   * @throws LedgerFailedException if an earlier write of this ledger failed in this store
   * @throws LedgerIOException if writing fails (the commit's outcome is what the next
   *     {@link #load} shows)
   * @throws NullPointerException if {@code newState}, {@code events} or a draft is null
   * @throws IllegalArgumentException if {@code expectedRevision} is negative, drafts carry
   *     different command ids, or the state cannot be written as JSON (nested too deep)
   */
  CommitResult commit(long expectedRevision, S newState, List<EventDraft> events);

  /**
   * Varargs form of {@link #commit(long, Object, List)}.
   *
   * @param expectedRevision the revision the new state was derived from
   * @param newState the new state
   * @param events the events to record, in order
   * @return as {@link #commit(long, Object, List)}
   * @throws RevisionConflictException if the current revision is another one
   * @throws CommandConflictException if the events' command id was recorded with other drafts
   * @throws NullPointerException if {@code newState}, {@code events} or a draft is null
   * @throws IllegalArgumentException if {@code expectedRevision} is negative
   */
  default CommitResult commit(long expectedRevision, S newState, EventDraft... events) {
    return commit(expectedRevision, newState, List.of(events));
  }

  /**
   * Read-modify-write that can decide: loads the state, asks {@code change} what to do with
   * it, and either writes nothing ({@link Change#none()}) or commits the new state and its
   * events ({@link Change#to}) with the revision it read. The events may depend on the state
   * the function saw. On a revision conflict it starts over, loading again and asking
   * {@code change} again, after a jittered exponential backoff, up to
   * {@link LedgerOptions#updateAttempts()} attempts. So {@code change} runs once per attempt
   * (a second run means the first attempt lost a race) and must have no side effects
   * beyond what it returns.
   *
   * <p>A store may run the load, {@code change} and the write of concurrent updates of one
   * ledger one at a time (the file store does, waiting up to
   * {@link LedgerOptions#lockTimeout()} for its turn before it tries without one): its
   * updates then lose races only to writers in other stores or processes, and while one
   * waits for its commit to become durable the next one writes, so that one force covers
   * several. A slow {@code change} delays the other updates of the ledger in that store.
   *
   * <p>{@code change} may run on the thread of another {@code update} of the same ledger in
   * the same store: in the file store, the update holding the ledger's turn runs the
   * changes of the updates queued behind it, one after another, each on the state the
   * previous one committed, and each caller then waits for its own commit to become durable
   * (one force covers the batch). So {@code change} must not rely on the identity, the
   * thread-locals or the interrupt status of its thread, which may be another caller's. What
   * it throws ({@code RuntimeException} or {@code Error}) is thrown to its own caller
   * unchanged (the same instance) and fails that update only; the others go on. A slow
   * {@code change} delays every update queued behind it. An {@code update} that
   * {@code change} itself makes on the same ledger runs at once, on the same thread.
   *
   * <p>If the change carries a command id that was already recorded with the same drafts,
   * nothing is written either (see Commands above).
   *
   * @param change decides, from the current state, the change to commit or none
   * @return the committed state and its revision; the current version, as loaded, when
   *     {@code change} returned none or its command was already recorded
   * @throws LedgerNotFoundException if the ledger does not exist (create it with
   *     {@link #commit} and {@link #NO_REVISION})
   * @throws RevisionConflictException the last conflict, once the attempts are used up
   * @throws CommandConflictException if the change's command id was recorded with other drafts
   * @throws NullPointerException if {@code change} is null or returns null
   */
  Versioned<S> update(Function<? super S, Change<S>> change);

  /**
   * Whether the command {@code commandId} was recorded in this ledger, and what its commit
   * produced. Writes nothing and takes no lock; sees every commit acknowledged before the
   * call, and after an I/O error, whether the failed commit reached the journal.
   *
   * @param commandId the caller's command id, as given to {@link EventDraft#withCommandId}
   * <p>After a {@link RetentionPolicy retention} removed the commit's record, the command is
   * still known (its index entry is kept for the ledger's life): the result then has the
   * commit's revision, no events (they are gone), the commit time of the last removed
   * revision (at or after the real one) and a cursor at the first retained event. A retry of
   * such a command through {@link #commit} replays the same way; with other drafts it is a
   * {@link CommandConflictException}.
   *
   * @return the original result ({@code replayed() == true}, with a cursor after its
   *     events), or empty if no commit of this ledger carries the id
   * @throws IllegalArgumentException if the id is empty or longer than
   *     {@link EventDraft#MAX_NAME_LENGTH}
   * @throws NullPointerException if {@code commandId} is null
   * @throws CorruptLedgerException if the command index or journal is damaged
   */
  Optional<CommitResult> command(String commandId);

  /**
   * Up to {@code limit} events committed after {@code after}, in sequence order.
   *
   * @param after a cursor from this ledger, or {@link Cursor#START}
   * @param limit 1 to 1000
   * @return the events, the cursor after them, and whether more follow
   * @throws NullPointerException if {@code after} is null
   * @throws IllegalArgumentException if limit is out of range
   * @throws InvalidCursorException if the cursor is not a valid cursor of this ledger
   * @throws HistoryTruncatedException if the cursor points into history that retention
   *     removed (a read from START begins at {@link #firstRetainedSequence()} instead)
   * @throws LedgerNotFoundException if the ledger does not exist and the cursor is not START
   *     (reading START of an absent ledger gives an empty page)
   */
  EventPage events(Cursor after, int limit);

  /**
   * Every event committed after {@code after}, read lazily for replay: memory stays bounded
   * whatever the journal's length (the file store reads at most 16 commit records or 1 MiB
   * of journal ahead of the stream, and always at least the next record, and decodes them on
   * the {@linkplain java.util.concurrent.ForkJoinPool#commonPool() common pool} where it has
   * a free thread). The stream sees commits up to the moment it reaches the end. It holds
   * open files: close it (try-with-resources).
   *
   * @param after a cursor from this ledger, or {@link Cursor#START}
   * @return the events in sequence order
   * @throws NullPointerException if {@code after} is null
   * @throws InvalidCursorException if the cursor is not a valid cursor of this ledger
   * @throws HistoryTruncatedException if the cursor points into history that retention
   *     removed, or (while the stream is read) a retention removes the segment it reads
   * @throws LedgerNotFoundException if the ledger does not exist and the cursor is not START
   */
  Stream<Event> replay(Cursor after);

  /**
   * The sequence of the first event this ledger's journal still holds: 1 unless a retention
   * ({@link RetentionPolicy}) removed older history. A read from {@link Cursor#START}
   * ({@link #events}, {@link #replay}, {@link #follow}) starts at this event; a cursor that
   * points before it (one that needs event {@code firstRetainedSequence() - 1} or earlier)
   * throws {@link HistoryTruncatedException}. So a reader from START that needs the whole
   * history compares its first event's sequence with 1, or calls this first. Takes no lock.
   *
   * <p>The default, for implementations written before retention existed, returns 1.
   *
   * @return the first retained sequence, at least 1 (1 for a ledger that does not exist)
   * @throws CorruptLedgerException if the retention marker is damaged
   * @throws LedgerIOException if it cannot be read
   */
  default long firstRetainedSequence() {
    return 1;
  }

  /**
   * Follows the journal after {@code after}: catch-up, then live, with
   * {@link EventFollower#DEFAULT_PAGE_SIZE} events per read. Equivalent to
   * {@code follow(after, EventFollower.DEFAULT_PAGE_SIZE)}.
   *
   * @param after a cursor from this ledger, or {@link Cursor#START}
   * @return a follower, to be closed (try-with-resources)
   * @throws NullPointerException if {@code after} is null
   * @throws StoreClosedException if the store is closed
   */
  default EventFollower follow(Cursor after) {
    return follow(after, EventFollower.DEFAULT_PAGE_SIZE);
  }

  /**
   * Follows the journal after {@code after}: first every event already committed after it
   * (catch-up), then each new commit's events as they land (live), in sequence order, each
   * exactly once, through segment rolls, checkpoints and writer restarts. The consumer pulls
   * with {@link EventFollower#next}; nothing is read beyond one page ahead of it (see
   * {@link EventFollower} for why this shape). Touches no file: the cursor is checked, and
   * the ledger need not exist yet, at the first read (a ledger that does not exist yet is
   * followed from {@code START} and delivers its first commit).
   *
   * <p>The library's stores implement it. The default, for implementations of this interface
   * written before it existed (decorators in users' tests), throws: a decorator should
   * delegate it.
   *
   * @param after a cursor from this ledger, or {@link Cursor#START}
   * @param pageSize the most events one read fetches and the follower buffers, 1 to 1000
   * @return a follower, to be closed (try-with-resources); the store's close closes it too
   * @throws IllegalArgumentException if {@code pageSize} is out of range
   * @throws NullPointerException if {@code after} is null
   * @throws StoreClosedException if the store is closed
   * @throws UnsupportedOperationException if this implementation does not follow
   */
  default EventFollower follow(Cursor after, int pageSize) {
    throw new UnsupportedOperationException(getClass().getName()
        + " does not implement Ledger.follow; delegate it to the store's ledger");
  }
}
