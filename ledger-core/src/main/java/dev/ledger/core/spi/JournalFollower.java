package dev.ledger.core.spi;

import com.google.common.base.Preconditions;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventFollower;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Optional;

/**
 * {@link EventFollower} over any {@link LedgerBackend}: reads a page after its cursor only
 * when every event read so far was returned, and between reads that found nothing waits on
 * the backend's {@link CommitWatch}. Holds no file between calls; the watch is its only
 * resource, released by {@link #close}.
 */
final class JournalFollower implements EventFollower {
  private final AbstractLedgerStore<?> store;
  private final LedgerBackend backend;
  private final int pageSize;
  private final CommitWatch watch;
  /** Read but not yet returned; touched by the consumer thread only. */
  private final ArrayDeque<CursoredEvent> buffer;
  private Cursor cursor;
  private volatile boolean closed;
  /** Why the follower ended, if a read failed or the store closed; rethrown by every call. */
  private volatile RuntimeException failure;
  /**
   * The commit time (epoch millis) of the last event delivered, until a read finds nothing
   * newer; then {@link #CAUGHT_UP}. Written by the consumer thread, read by metrics.
   */
  private volatile long deliveredAt = CAUGHT_UP;
  private static final long CAUGHT_UP = Long.MIN_VALUE;

  JournalFollower(AbstractLedgerStore<?> store, LedgerBackend backend, Cursor after,
      int pageSize) {
    this.store = store;
    this.backend = backend;
    this.cursor = after;
    this.pageSize = pageSize;
    this.buffer = new ArrayDeque<>(pageSize);
    this.watch = backend.watchCommits();
  }

  @Override
  public Optional<Event> next(Duration timeout) throws InterruptedException {
    Preconditions.checkNotNull(timeout, "timeout");
    Preconditions.checkArgument(!timeout.isNegative(), "timeout must not be negative: %s",
        timeout);
    checkOpen();
    long start = System.nanoTime();
    long budget = saturatedNanos(timeout);
    while (true) {
      if (closed) {
        return ended();
      }
      Optional<Event> event = take();
      if (event.isPresent()) {
        return event;
      }
      // Read the version before the journal: a commit after the read moves it, so the wait
      // below returns at once instead of missing that commit.
      long seen = watch.version();
      if (fill()) {
        continue;
      }
      long remaining = budget - (System.nanoTime() - start);
      if (remaining <= 0) {
        return Optional.empty();
      }
      watch.await(seen, remaining, () -> closed);
    }
  }

  @Override
  public Optional<Event> poll() {
    checkOpen();
    Optional<Event> event = take();
    if (event.isEmpty() && fill()) {
      event = take();
    }
    return closed ? ended() : event;
  }

  private Optional<Event> take() {
    CursoredEvent next = buffer.poll();
    if (next == null) {
      return Optional.empty();
    }
    cursor = next.after();
    deliveredAt = next.event().occurredAt().toEpochMilli();
    return Optional.of(next.event());
  }

  /** Reads the next page into the buffer; true if it held events. */
  private boolean fill() {
    List<CursoredEvent> page;
    try {
      page = store.guarded(() -> backend.eventsWithCursors(cursor, pageSize));
    } catch (RuntimeException e) {
      fail(e);
      throw e;
    }
    if (page.isEmpty()) {
      deliveredAt = CAUGHT_UP;
      return false;
    }
    buffer.addAll(page);
    return true;
  }

  /**
   * How far behind the journal this follower is, for the gauge {@code ledger.follow.lag}: the
   * age of the last event it delivered, from its commit time, until a read finds nothing
   * newer (then 0). A consumer that stalls on an event shows a growing lag.
   *
   * @param nowMillis the store clock's time
   * @return the lag in milliseconds, 0 when caught up or nothing was delivered yet
   */
  long lagMillis(long nowMillis) {
    long at = deliveredAt;
    return at == CAUGHT_UP || closed ? 0 : Math.max(0, nowMillis - at);
  }

  private void checkOpen() {
    RuntimeException f = failure;
    if (f != null) {
      throw f;
    }
    Preconditions.checkState(!closed, "the follower of ledger '%s' is closed", backend.rootId());
  }

  /** What a call returns once the follower ended during it. */
  private Optional<Event> ended() {
    RuntimeException f = failure;
    if (f != null) {
      throw f;
    }
    return Optional.empty();
  }

  @Override
  public Cursor cursor() {
    return cursor;
  }

  @Override
  public int buffered() {
    return closed ? 0 : buffer.size();
  }

  @Override
  public int pageSize() {
    return pageSize;
  }

  @Override
  public boolean isClosed() {
    return closed;
  }

  /** Ends the follower with {@code cause}, which every later call throws. */
  void fail(RuntimeException cause) {
    if (failure == null) {
      failure = cause;
    }
    close();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    store.forget(this);
    watch.wake();
    watch.close();
  }

  private static long saturatedNanos(Duration timeout) {
    try {
      return timeout.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }

  @Override
  public String toString() {
    return "follower of ledger '" + backend.rootId() + "' after " + cursor
        + (closed ? " (closed)" : "");
  }
}
