package dev.ledger.core.fs;

import dev.ledger.core.spi.CommitSignal;
import dev.ledger.core.spi.CommitWatch;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * What one follower of a file ledger waits on: the ledger's {@link CommitSignal}, which this
 * store's writer fires after each durable commit, and which {@link JournalWatcher} also fires
 * when the journal directory changes (another process's or another store's commit, a segment
 * roll).
 *
 * <p><b>Bounds.</b> Directory notifications can be missed (a directory replaced under its
 * watch, a file system without native notifications, where the JDK polls every few seconds),
 * so no wait lasts longer than {@link #WATCHED_POLL_MILLIS} while the directory is watched,
 * and {@link #UNWATCHED_POLL_MILLIS} while it is not (the ledger has no journal yet, or the
 * file system offers no watch service). The directory is registered at the first wait, not
 * when the follower opens, so a follower that never waits holds nothing; the wait right after
 * registering returns at once, so that a commit made before the watch existed is read.
 */
final class JournalWatch implements CommitWatch {
  /** The longest wait while the journal directory is watched: the safety net. */
  static final long WATCHED_POLL_MILLIS = 250;
  /** The longest wait while it is not: the fallback. */
  static final long UNWATCHED_POLL_MILLIS = 25;

  private final CommitSignal signal;
  private final Path dir;
  private JournalWatcher.Registration registration; // guarded by this
  private boolean closed; // guarded by this

  JournalWatch(CommitSignal signal, Path dir) {
    this.signal = signal;
    this.dir = dir;
  }

  @Override
  public long version() {
    return signal.version();
  }

  @Override
  public void await(long seen, long timeoutNanos, BooleanSupplier stop)
      throws InterruptedException {
    long bound;
    synchronized (this) {
      if (closed) {
        return;
      }
      if (registration != null && !registration.valid()) {
        registration.close();
        registration = null;
      }
      if (registration == null) {
        registration = JournalWatcher.INSTANCE.register(dir, signal);
        bound = registration == null ? TimeUnit.MILLISECONDS.toNanos(UNWATCHED_POLL_MILLIS) : 0;
      } else {
        bound = TimeUnit.MILLISECONDS.toNanos(WATCHED_POLL_MILLIS);
      }
    }
    signal.await(seen, Math.min(timeoutNanos, bound), stop);
  }

  @Override
  public void wake() {
    signal.wakeAll();
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (registration != null) {
      registration.close();
      registration = null;
    }
  }
}
