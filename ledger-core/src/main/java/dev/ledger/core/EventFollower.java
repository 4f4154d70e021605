package dev.ledger.core;

import java.time.Duration;
import java.util.Optional;

/**
 * A live read of a ledger's events: every event committed after the cursor it was opened
 * with, then each new one as it is committed, in sequence order, each exactly once. Opened by
 * {@link Ledger#follow}.
 *
 * <p><b>Why a pull.</b> The consumer's own thread reads: {@link #next} returns an event that
 * was already read or reads the next page of the journal (at most {@link #pageSize()} events)
 * when none is left, and waits only when the journal has nothing after the cursor. A slow
 * consumer therefore holds back the reading itself: nothing is read ahead of its demand, so
 * memory stays bounded by one page ({@link #buffered()} never exceeds the page size) and no
 * thread, queue or subscription exists to leak. A {@code Flow.Publisher} adapter can be built
 * on top; the reverse needs a queue and a thread per follower.
 *
 * <p><b>Waking.</b> A commit through the same store wakes a waiting follower at once (a
 * per-ledger signal the writer fires once the commit is durable). Commits of other processes,
 * or of other store instances on the same directory, arrive through a watch of the journal
 * directory ({@code WatchService}), with a bounded re-read as a safety net for missed
 * notifications; the file store documents its bounds. A follower follows through segment
 * rolls, checkpoints and writer restarts: it reads only the journal, after its cursor.
 *
 * <p><b>Errors.</b> A failure to read (a damaged journal, an invalid cursor, a closed store:
 * the same typed errors as {@link Ledger#events}) closes the follower; that call and every
 * later one throw it. Commits are never skipped: when history before the cursor is no longer
 * there (a {@link RetentionPolicy} removed it), the read fails with
 * {@link HistoryTruncatedException}, as {@code events} does, never with a silent gap; a
 * follower opened at {@link Cursor#START} starts at the first retained event
 * ({@link Ledger#firstRetainedSequence()}).
 *
 * <p><b>Threads.</b> One consumer thread calls {@link #next}, {@link #poll}, {@link #cursor}
 * and {@link #buffered}; {@link #close} may be called from any thread and wakes a waiting
 * {@code next}.
 */
public interface EventFollower extends AutoCloseable {
  /** Events read per page when {@link Ledger#follow(Cursor)} is given no page size. */
  int DEFAULT_PAGE_SIZE = 100;

  /**
   * The next event, waiting up to {@code timeout} for one to be committed if none is.
   *
   * @param timeout how long to wait; zero reads once without waiting
   * @return the next event, or empty if none came within the timeout, or if the follower was
   *     closed (by another thread) while this call waited
   * @throws InterruptedException if the thread was interrupted while waiting
   * @throws IllegalStateException if the follower was closed before the call
   * @throws IllegalArgumentException if {@code timeout} is negative
   * @throws NullPointerException if {@code timeout} is null
   * @throws StoreClosedException if the store was closed (the follower is closed too)
   * @throws LedgerException if the journal could not be read (the follower is closed)
   */
  Optional<Event> next(Duration timeout) throws InterruptedException;

  /**
   * The next event if one is buffered or committed, without waiting.
   *
   * @return the next event, or empty if none is committed after the cursor
   * @throws IllegalStateException if the follower is closed
   * @throws StoreClosedException if the store was closed (the follower is closed too)
   * @throws LedgerException if the journal could not be read (the follower is closed)
   */
  Optional<Event> poll();

  /**
   * The cursor after the last event returned (the cursor it was opened with before the first
   * one): store it to resume later, in this process or another, with {@link Ledger#follow}.
   *
   * @return the cursor after the last event returned
   */
  Cursor cursor();

  /**
   * How many events were read from the journal and not yet returned: at most
   * {@link #pageSize()}, and 0 after close.
   *
   * @return the number of buffered events
   */
  int buffered();

  /**
   * The most events one read of the journal fetches.
   *
   * @return the page size, 1 to 1000
   */
  int pageSize();

  /**
   * Whether {@link #close} was called or a read failed.
   *
   * @return true once closed
   */
  boolean isClosed();

  /**
   * Stops following: drops the buffered events, releases the directory watch and any
   * registration, and wakes a thread waiting in {@link #next} (which returns empty). Commits
   * made after close are not delivered. Idempotent; never throws.
   */
  @Override
  void close();
}
