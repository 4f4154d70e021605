package dev.ledger.core.spi;

import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventPage;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The storage side of one ledger, untyped: what a backend (files, memory, later a database)
 * implements so that {@link TypedLedger} can offer {@link dev.ledger.core.Ledger} on top of it.
 * Argument validation, JSON mapping, size limits and the update retry loop live in
 * {@code TypedLedger}; the backend owns atomicity, durability, revision and command checks,
 * and the journal. Implementations are thread-safe.
 */
public interface LedgerBackend {
  /** The ledger's root id. */
  String rootId();

  /** The latest committed state, or empty if the ledger was never committed to. */
  Optional<StoredState> read();

  /**
   * Commits atomically: command replay or conflict first, then the revision check, then one
   * record with the state and events.
   */
  CommitResult commit(CommitRequest request);

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

  /** Up to {@code limit} events after {@code after} (limit already validated). */
  EventPage events(Cursor after, int limit);

  /** Every event after {@code after}, lazily; the caller closes the stream. */
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
}
