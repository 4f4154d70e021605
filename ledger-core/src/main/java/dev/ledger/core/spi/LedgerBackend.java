package dev.ledger.core.spi;

import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventPage;
import dev.ledger.core.LedgerHead;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The storage side of one ledger, untyped: what a backend (files, memory, later a database)
 * implements so that {@link TypedLedger} can offer {@link dev.ledger.core.Ledger} on top of it.
 * Argument validation, JSON mapping, size limits and the update retry loop live in
 * {@code TypedLedger}; the backend owns atomicity, durability, revision and command checks,
 * and the journal. Implementations are thread-safe.
 */
public interface LedgerBackend {
  /**
   * The ledger this backend stores.
   *
   * @return the root id, as validated by the store that opened the backend
   */
  String rootId();

  /**
   * Reads the latest committed state; takes no writer lock.
   *
   * @return the state of the latest acknowledged commit, or empty if the ledger was never
   *     committed to
   * @throws dev.ledger.core.CorruptLedgerException if the stored files are damaged
   * @throws dev.ledger.core.LedgerIOException if they cannot be read
   */
  Optional<StoredState> read();

  /**
   * Whether the ledger was ever committed to; reads no state and takes no lock.
   *
   * @return true once a commit was acknowledged
   * @throws dev.ledger.core.LedgerException for the backend's own failures
   */
  boolean exists();

  /**
   * The latest revision, event count and commit time, as {@link #read()} would find them,
   * but without building the state; takes no writer lock.
   *
   * @return the head of the latest acknowledged commit, or empty if the ledger was never
   *     committed to
   * @throws dev.ledger.core.CorruptLedgerException if the stored files are damaged
   * @throws dev.ledger.core.LedgerIOException if they cannot be read
   */
  Optional<LedgerHead> head();

  /**
   * Commits atomically: command replay or conflict first, then the revision check, then one
   * record with the state and events. A refused commit writes nothing.
   *
   * @param request the validated commit
   * @return the new revision and events, or the recorded result with
   *     {@code replayed() == true} when the request's command was already recorded with the
   *     same digest
   * @throws dev.ledger.core.CommandConflictException if the command was recorded with another
   *     digest
   * @throws dev.ledger.core.RevisionConflictException if the current revision is not
   *     {@code request.expectedRevision()}
   * @throws dev.ledger.core.LedgerException for the backend's own failures: a lock not
   *     acquired in time, a read-only store, a failed or impossible write
   */
  CommitResult commit(CommitRequest request);

  /**
   * Writes a commit as {@link #commit} does (same checks, same errors, nothing written when
   * refused) but may return before it is durable: the caller acknowledges it only once
   * {@link PendingCommit#awaitDurable} returns. Between the two, later commits may be written
   * on top of it and one force may cover them all (group commit). The default commits and
   * returns a pending commit that is durable already.
   *
   * @param request the validated commit
   * @return the written commit, to wait for; a replayed command is durable already
   * @throws dev.ledger.core.CommandConflictException as {@link #commit}
   * @throws dev.ledger.core.RevisionConflictException as {@link #commit}
   * @throws dev.ledger.core.LedgerException as {@link #commit}
   */
  default PendingCommit append(CommitRequest request) {
    return PendingCommit.durable(commit(request));
  }

  /**
   * Runs one attempt of an {@link dev.ledger.core.Ledger#update update} (load, the caller's
   * change, {@link #append}) in this backend's update turn: attempts through this backend run
   * one at a time, so that they never conflict with each other and only writers elsewhere
   * (other stores, other processes) can make one fail on its revision. The turn covers the
   * write, not the force: the next attempt runs while this one waits for its force, and one
   * force covers both. An attempt that waited {@code patience} for the turn runs without it
   * (as an optimistic attempt, which a revision conflict may refuse), so that a slow change
   * function delays the others without stopping them. The default, for a backend with
   * nothing to gain, runs {@code attempt} at once.
   *
   * <p>A backend may run {@code attempt} on the thread of another caller of this method that
   * holds the turn (flat combining: the holder runs the attempts queued behind it, one after
   * another, so that none waits for its thread to be woken before it can start). The caller
   * then waits for it and gets what it returned, or what it threw, unchanged (the same
   * instance). An attempt must therefore not depend on the identity or the thread-locals of
   * its thread.
   *
   * @param patience the longest wait for the turn
   * @param attempt the attempt; it may run another attempt of this backend on the same
   *     thread (that one runs at once, in the turn already held)
   * @param <T> what the attempt returns
   * @return what {@code attempt} returned
   * @throws NullPointerException if an argument is null
   * @throws RuntimeException whatever {@code attempt} threw (an {@code Error} likewise)
   */
  default <T> T inUpdateTurn(Duration patience, Supplier<T> attempt) {
    Objects.requireNonNull(patience, "patience");
    return attempt.get();
  }

  /**
   * The result of the commit that recorded {@code publicCommandId}, as a replay
   * ({@code replayed() == true}) with a cursor after its events, or empty if no commit of this
   * ledger carries it. Writes nothing and takes no writer lock; sees every commit acknowledged
   * before the call.
   *
   * @param publicCommandId the public command id ({@link CommitRequest#publicCommandId})
   * @return the recorded result, or empty
   */
  Optional<CommitResult> command(String publicCommandId);

  /**
   * Reads one page of the journal.
   *
   * @param after the position to read after; {@link Cursor#START} for the first event
   * @param limit the largest number of events to return, already validated by the caller
   * @return up to {@code limit} events committed after {@code after}, in sequence order, with
   *     the cursor to read the next page
   * @throws dev.ledger.core.InvalidCursorException if {@code after} is not a valid cursor of
   *     this ledger
   * @throws dev.ledger.core.LedgerNotFoundException if the ledger does not exist and
   *     {@code after} is not START
   */
  EventPage events(Cursor after, int limit);

  /**
   * Reads the journal from a position to its end, lazily.
   *
   * @param after the position to read after; {@link Cursor#START} for the whole journal
   * @return every event committed after {@code after}, in sequence order; the caller closes
   *     the stream, which holds files open
   * @throws dev.ledger.core.InvalidCursorException if {@code after} is not a valid cursor of
   *     this ledger
   * @throws dev.ledger.core.LedgerNotFoundException if the ledger does not exist and
   *     {@code after} is not START
   */
  Stream<Event> replay(Cursor after);

  /**
   * Up to {@code limit} events after {@code after}, each with the cursor just after it: the
   * page a follower reads. Same rules as {@link #events} (limit already validated; reading
   * {@code START} of an absent ledger gives an empty list).
   *
   * @param after a cursor from this ledger, or {@code START}
   * @param limit 1 to 1000
   * @return the events in sequence order, empty if none were committed after {@code after}
   * @throws dev.ledger.core.InvalidCursorException if the cursor is not one of this ledger's
   * @throws dev.ledger.core.LedgerNotFoundException if the ledger does not exist and the
   *     cursor is not START
   */
  List<CursoredEvent> eventsWithCursors(Cursor after, int limit);

  /**
   * A watch a follower waits on between reads: it wakes on this store's commits of the ledger
   * and, for a backend that other processes or stores also write, on theirs. Holds what it
   * needs until closed.
   *
   * @return a new watch, to be closed by the follower
   */
  CommitWatch watchCommits();

  /**
   * The sequence of the first event the journal still holds ({@link
   * dev.ledger.core.Ledger#firstRetainedSequence}). The default, for backends without
   * retention, is 1.
   *
   * @return the first retained sequence, at least 1
   * @throws dev.ledger.core.LedgerException for the backend's own failures
   */
  default long firstRetainedSequence() {
    return 1;
  }
}
