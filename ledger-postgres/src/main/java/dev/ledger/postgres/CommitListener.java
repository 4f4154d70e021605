package dev.ledger.postgres;

import dev.ledger.core.spi.CommitSignal;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one listening connection of a store: a daemon thread that holds a connection in
 * {@code LISTEN} on the store's channel and fires the signal of each ledger named by a
 * notification. Commits send their root id with {@code pg_notify} once they committed
 * ({@link CommitNotifier}), so a notification never announces a commit not yet visible.
 *
 * <p>Notifications are only a wake-up: followers read pages after their own cursor, so a lost
 * notification can delay an event, never lose or repeat one. Notifications sent while the
 * connection is down are lost, so after every (re)connection, once {@code LISTEN} holds, the
 * listener fires every signal: each follower reads again, and what was committed in the gap
 * is found by that read. A broken connection is noticed by the failed wait, or within
 * {@link #HEALTH_CHECK_NANOS} by a probe query, and reopened with a backoff.
 */
final class CommitListener {
  private static final Logger LOG = LoggerFactory.getLogger(CommitListener.class);
  /** Longest single wait for notifications; bounds how long {@link #stop} takes. */
  private static final int WAIT_MILLIS = 200;
  /** A probe query after this long without a notification, to notice a dead connection. */
  private static final long HEALTH_CHECK_NANOS = 5_000_000_000L;
  private static final long MAX_BACKOFF_MILLIS = 2_000;

  private final DataSource dataSource;
  private final String channel;
  private final Function<String, CommitSignal> signalOf;
  private final Supplier<Collection<CommitSignal>> allSignals;
  private final Thread thread;
  private volatile boolean stopped;
  private volatile int backendPid;
  private volatile long connections;

  CommitListener(DataSource dataSource, String channel, String name,
      Function<String, CommitSignal> signalOf, Supplier<Collection<CommitSignal>> allSignals) {
    this.dataSource = dataSource;
    this.channel = channel;
    this.signalOf = signalOf;
    this.allSignals = allSignals;
    this.thread = new Thread(this::run, "ledger-postgres listener (" + name + ")");
    thread.setDaemon(true);
    thread.start();
  }

  /** The server process id of the current listening connection, 0 while disconnected. */
  int backendPid() {
    return backendPid;
  }

  /** How many times a listening connection was established. */
  long connections() {
    return connections;
  }

  private void run() {
    long backoff = 50;
    while (!stopped) {
      try (Connection c = dataSource.getConnection()) {
        c.setAutoCommit(true);
        PGConnection pg = c.unwrap(PGConnection.class);
        try (Statement s = c.createStatement()) {
          s.execute("LISTEN \"" + channel + "\"");
        }
        backendPid = pg.getBackendPID();
        connections++;
        backoff = 50;
        // What was committed while nobody listened is found by the reads this provokes.
        fireAll();
        listen(c, pg);
      } catch (SQLException | RuntimeException e) {
        backendPid = 0;
        if (stopped) {
          return;
        }
        LOG.warn("Listening connection on channel {} failed; reconnecting in {} ms: {}",
            channel, backoff, e.toString());
        fireAll();
        try {
          Thread.sleep(backoff);
        } catch (InterruptedException ie) {
          return;
        }
        backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
      }
    }
  }

  private void listen(Connection c, PGConnection pg) throws SQLException {
    long lastHeard = System.nanoTime();
    while (!stopped) {
      PGNotification[] received = pg.getNotifications(WAIT_MILLIS);
      if (received != null && received.length > 0) {
        lastHeard = System.nanoTime();
        for (PGNotification n : received) {
          CommitSignal signal = signalOf.apply(n.getParameter());
          if (signal != null) {
            signal.fire();
          }
        }
      } else if (System.nanoTime() - lastHeard > HEALTH_CHECK_NANOS) {
        try (Statement s = c.createStatement()) {
          s.execute("SELECT 1");
        }
        lastHeard = System.nanoTime();
      }
    }
  }

  private void fireAll() {
    for (CommitSignal signal : allSignals.get()) {
      signal.fire();
    }
  }

  /** Stops the thread and waits for it to release its connection. */
  void stop() {
    stopped = true;
    thread.interrupt();
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
