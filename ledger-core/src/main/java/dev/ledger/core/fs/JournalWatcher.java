package dev.ledger.core.fs;

import dev.ledger.core.spi.CommitSignal;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the journal directories that followers in this JVM wait on, and fires their
 * ledgers' {@link CommitSignal}s when a directory changes: a record appended (by any process),
 * a segment created. One watch service and one daemon thread
 * ({@value #THREAD_NAME}) for the whole JVM, started by the first registration and stopped
 * when the last one is closed, so an idle process keeps no thread and no inotify instance.
 *
 * <p>Only directories of the default file system are watched; elsewhere
 * {@link #register} returns null and followers poll (see {@link JournalWatch}). A key that
 * stops being valid (its directory deleted or replaced) marks its registrations invalid and
 * fires their signals, so their followers re-read and register again.
 */
final class JournalWatcher {
  static final String THREAD_NAME = "ledger-journal-watcher";
  static final JournalWatcher INSTANCE = new JournalWatcher();

  private static final Logger LOG = LoggerFactory.getLogger(JournalWatcher.class);

  private WatchService service; // guarded by this
  private final Map<WatchKey, Watched> byKey = new HashMap<>(); // guarded by this
  private final Map<Path, Watched> byDir = new HashMap<>(); // guarded by this

  /** One watched directory and the registrations that wait on it. */
  private static final class Watched {
    final Path dir;
    final WatchKey key;
    final Set<Registration> registrations = new LinkedHashSet<>();
    volatile boolean valid = true;

    Watched(Path dir, WatchKey key) {
      this.dir = dir;
      this.key = key;
    }
  }

  /** One follower's interest in one directory; close it to let go. */
  final class Registration implements AutoCloseable {
    private final Watched watched;
    private final CommitSignal signal;

    private Registration(Watched watched, CommitSignal signal) {
      this.watched = watched;
      this.signal = signal;
    }

    /** False once the directory's watch ended (the directory went away or was replaced). */
    boolean valid() {
      return watched.valid;
    }

    @Override
    public void close() {
      unregister(this);
    }
  }

  private JournalWatcher() {}

  /**
   * Watches {@code dir} for {@code signal} until the registration is closed.
   *
   * @return the registration, or null if {@code dir} does not exist (yet) or cannot be watched
   */
  synchronized Registration register(Path dir, CommitSignal signal) {
    if (dir.getFileSystem() != FileSystems.getDefault()) {
      return null;
    }
    Watched watched = byDir.get(dir);
    if (watched == null || !watched.valid) {
      if (!Files.isDirectory(dir)) {
        return null;
      }
      try {
        if (service == null) {
          service = dir.getFileSystem().newWatchService();
          Thread thread = new Thread(dispatch(service), THREAD_NAME);
          thread.setDaemon(true);
          thread.start();
        }
        WatchKey key = dir.register(service, StandardWatchEventKinds.ENTRY_CREATE,
            StandardWatchEventKinds.ENTRY_MODIFY, StandardWatchEventKinds.ENTRY_DELETE);
        watched = byKey.get(key);
        if (watched == null) {
          watched = new Watched(dir, key);
          byKey.put(key, watched);
        }
        byDir.put(dir, watched);
      } catch (IOException | UnsupportedOperationException e) {
        LOG.debug("cannot watch {}; followers of it poll", dir, e);
        stopIfIdle();
        return null;
      }
    }
    Registration registration = new Registration(watched, signal);
    watched.registrations.add(registration);
    return registration;
  }

  private synchronized void unregister(Registration registration) {
    Watched watched = registration.watched;
    if (!watched.registrations.remove(registration) || !watched.registrations.isEmpty()) {
      return;
    }
    watched.valid = false;
    watched.key.cancel();
    byKey.remove(watched.key, watched);
    byDir.remove(watched.dir, watched);
    stopIfIdle();
  }

  /** Closes the service (its thread then ends) once nothing is watched. */
  private void stopIfIdle() {
    if (byKey.isEmpty() && service != null) {
      try {
        service.close();
      } catch (IOException e) {
        LOG.debug("closing the journal watch service failed", e);
      }
      service = null;
    }
  }

  /** Whether a watch service is running (for tests: it ends with the last registration). */
  synchronized boolean running() {
    return service != null;
  }

  private Runnable dispatch(WatchService watching) {
    return () -> {
      while (true) {
        WatchKey key;
        try {
          key = watching.take();
        } catch (ClosedWatchServiceException | InterruptedException e) {
          return;
        }
        key.pollEvents();
        List<CommitSignal> signals = new ArrayList<>();
        synchronized (this) {
          Watched watched = byKey.get(key);
          if (watched != null) {
            for (Registration r : watched.registrations) {
              signals.add(r.signal);
            }
            if (!key.reset()) {
              watched.valid = false;
              byKey.remove(key, watched);
              byDir.remove(watched.dir, watched);
            }
          }
        }
        for (CommitSignal signal : signals) {
          signal.fire();
        }
      }
    };
  }
}
