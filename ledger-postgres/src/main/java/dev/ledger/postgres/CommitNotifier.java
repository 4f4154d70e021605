package dev.ledger.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the notifications of a store's commits after they committed, from one daemon thread,
 * instead of inside each commit's transaction.
 *
 * <p><b>Why not in the commit.</b> A transaction that has called {@code pg_notify} takes, at
 * commit, a lock PostgreSQL holds for the whole database until the commit is done, WAL flush
 * included (so that notifications enter the queue in commit order). Every notifying commit of
 * every client, on any ledger, then waits for the previous one's flush: commits are
 * serialized, and the WAL's group commit, which lets many clients share one flush, never
 * happens. Sent afterwards, in a transaction of their own with {@code synchronous_commit} off
 * (a notification is a wake-up, not data), the notifications hold that lock for microseconds.
 *
 * <p><b>What it costs.</b> Nothing on the commit's path but adding its root id to a set. The
 * thread sends every root id pending at once in one statement, at most once every
 * {@link #WINDOW_NANOS}, so a burst of commits costs one round trip, and a ledger committed
 * to several times meanwhile is notified once. Each send is a transaction of its own on the
 * server (a transaction id, a commit record, the notification queue) and a round trip and a
 * wake-up of this thread on the client: measured on a durable PostgreSQL 14 next to one
 * committing client, about as much server CPU again as half a commit. The window bounds how
 * many of them a stream of commits pays for, whatever its rate.
 *
 * <p><b>Delay.</b> The first commit after a quiet window is sent at once; while commits keep
 * coming, a follower in another store hears of one at most {@link #WINDOW_NANOS} (plus a
 * round trip) after it committed. Followers in this store do not wait for it: the commit
 * wakes them directly. A notification still leaves only after its commit is visible. If the
 * process dies between a commit and its notification, or the statement fails, followers
 * elsewhere learn of the commit by their next read: the next notification of that ledger or
 * their poll bound.
 *
 * <p>Thread-safe. The thread starts with the first commit and borrows a connection only while
 * it sends; {@link #stop} sends what is pending and ends it.
 */
final class CommitNotifier {
  private static final Logger LOG = LoggerFactory.getLogger(CommitNotifier.class);
  /** Longest park without work; bounds how long {@link #stop} takes to be noticed. */
  private static final long IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
  private static final long MAX_BACKOFF_MILLIS = 2_000;
  /**
   * Least time between two sends: commits within it share one notifying transaction, so a
   * stream of commits costs the server at most 100 notifying transactions a second (2 ms
   * cost one commit in two to eight a notification of its own at the commit rates of one
   * client); followers elsewhere hear of a commit at most this much later.
   */
  static final long WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  private final DataSource dataSource;
  private final String channel;
  private final String name;
  private final Set<String> pending = ConcurrentHashMap.newKeySet();
  private volatile Thread thread;
  private volatile boolean stopped;
  /**
   * True while the thread parks with nothing pending: only then does a commit wake it. In
   * its window, or backing off, it wakes on its own; waking it on every commit cost a
   * context switch per commit for nothing.
   */
  private volatile boolean idle;

  CommitNotifier(DataSource dataSource, String channel, String name) {
    this.dataSource = dataSource;
    this.channel = channel;
    this.name = name;
  }

  /** Queues the notification of a commit of {@code root} that has committed. */
  void committed(String root) {
    pending.add(root);
    Thread t = thread;
    if (t == null) {
      t = start();
    }
    // The root id is in the set before idle is read, and the thread sets idle before it
    // looks at the set: one of the two sees the other's write, so no commit is left
    // waiting for the idle park's end.
    if (idle) {
      LockSupport.unpark(t);
    }
  }

  private synchronized Thread start() {
    if (thread == null && !stopped) {
      Thread t = new Thread(this::run, "ledger-postgres notifier (" + name + ")");
      t.setDaemon(true);
      t.start();
      thread = t;
    }
    return thread != null ? thread : Thread.currentThread();
  }

  private void run() {
    long backoff = 50;
    long lastSend = System.nanoTime() - WINDOW_NANOS;
    while (!stopped) {
      if (pending.isEmpty()) {
        idle = true;
        if (pending.isEmpty() && !stopped) {
          LockSupport.parkNanos(this, IDLE_NANOS);
        }
        idle = false;
        continue;
      }
      long early = lastSend + WINDOW_NANOS - System.nanoTime();
      if (early > 0) {
        LockSupport.parkNanos(this, early);
        continue;
      }
      try {
        lastSend = System.nanoTime();
        sendPending();
        backoff = 50;
      } catch (SQLException | RuntimeException e) {
        LOG.warn("Notifying commits on channel {} failed; retrying in {} ms: {}", channel,
            backoff, e.toString());
        LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(backoff));
        backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
      }
    }
  }

  /**
   * Sends every pending root id in one statement, which also turns {@code synchronous_commit}
   * off for its own transaction; on failure they stay pending.
   */
  private void sendPending() throws SQLException {
    List<String> roots = new ArrayList<>(pending);
    if (roots.isEmpty()) {
      return;
    }
    pending.removeAll(roots);
    try (Connection c = dataSource.getConnection()) {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      // One statement: synchronous_commit is read when the transaction commits, so setting
      // it anywhere in the transaction, here with the notifications, is enough.
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT count(pg_notify(?, r)), set_config('synchronous_commit', 'off', true)"
              + " FROM unnest(?::text[]) AS r")) {
        ps.setString(1, channel);
        ps.setArray(2, c.createArrayOf("text", roots.toArray()));
        ps.execute();
      }
    } catch (SQLException | RuntimeException e) {
      pending.addAll(roots);
      throw e;
    }
  }

  /** Sends what is pending (once, best effort) and stops the thread. */
  void stop() {
    Thread t;
    synchronized (this) {
      stopped = true;
      t = thread;
    }
    if (t == null) {
      return;
    }
    LockSupport.unpark(t);
    try {
      t.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      sendPending();
    } catch (SQLException | RuntimeException e) {
      LOG.warn("Notifying the last commits on channel {} failed: {}", channel, e.toString());
    }
  }
}
