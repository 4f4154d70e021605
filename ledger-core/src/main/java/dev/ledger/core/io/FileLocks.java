package dev.ledger.core.io;

import dev.ledger.core.LedgerIOException;
import dev.ledger.core.LockLostException;
import dev.ledger.core.LockTimeoutException;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.LockSupport;

/**
 * Exclusive locks on lock files, safe across threads and processes.
 *
 * <p>A {@code FileChannel} lock belongs to the whole JVM: a second lock of the same file from
 * the same JVM throws {@code OverlappingFileLockException}, and closing any channel to the
 * file may drop the lock. So a lock is taken in two steps: first an in-process
 * {@link ReentrantLock} per canonical lock-file path (shared by every store instance in the
 * JVM), then the OS lock through one channel that stays open while the lock is held and is
 * the only channel this JVM opens on that file. The OS releases the lock when the process
 * dies, so there are no stale locks to clean up.
 *
 * <p>While held, the lock file contains one line naming the holder
 * ({@code pid=... host=... since=...}); a waiter that times out reports it. The content is
 * cleared on release. The file itself is never deleted: deleting it would let two processes
 * lock two different inodes under one name.
 */
public final class FileLocks {
  private static final ConcurrentHashMap<Path, Entry> IN_PROCESS = new ConcurrentHashMap<>();
  /**
   * Canonical keys by absolute lock-file path: resolving the real path walks every component
   * (a readlink each), on every commit. A link changed after the first lock can only make two
   * names of one file use two in-process locks; the OS lock still excludes, and the second
   * locker then waits (OverlappingFileLockException is retried) instead of sharing the lock.
   */
  private static final ConcurrentHashMap<Path, Path> CANONICAL = new ConcurrentHashMap<>();
  private static final String SELF = describeSelf();
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(FileLocks.class);

  private FileLocks() {}

  /**
   * Takes the lock on {@code lockFile} (created owner-only if missing), waiting up to
   * {@code timeout}.
   *
   * @throws LockTimeoutException naming the file and the holder when the deadline passes
   * @throws LedgerIOException if the lock file cannot be opened or locked
   */
  public static Held acquire(Path lockFile, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Held held = tryAcquire(lockFile, timeout, deadline);
      if (held != null) {
        return held;
      }
    }
  }

  /** One attempt; null if the file was replaced between opening and locking it. */
  private static Held tryAcquire(Path lockFile, Duration timeout, long deadline) {
    Path key = canonical(lockFile);
    Entry entry = retain(key);
    if (entry.lock.isHeldByCurrentThread()) {
      unlockAndRelease(key, entry, false);
      throw new IllegalStateException("Lock " + lockFile + " is already held by this thread; "
          + "ledger locks are not reentrant");
    }
    boolean inProcess = false;
    try {
      inProcess = entry.lock.tryLock(Math.max(0, deadline - System.nanoTime()),
          TimeUnit.NANOSECONDS);
      if (!inProcess) {
        throw new LockTimeoutException(lockFile, timeout, "another thread of this process ("
            + SELF + ")");
      }
      FileChannel channel = SafeFiles.open(lockFile, Set.of(StandardOpenOption.CREATE,
          StandardOpenOption.READ, StandardOpenOption.WRITE));
      try {
        Object fileKey = fileKey(lockFile);
        FileLock lock = lockWithDeadline(channel, lockFile, timeout, deadline);
        Held held = new Held(key, entry, channel, lock, lockFile, fileKey);
        if (!held.stillNamed()) {
          // Replaced between open and lock: this channel locks an orphaned file.
          held.releaseOnly();
          return null;
        }
        recordHolder(channel);
        return held;
      } catch (RuntimeException | IOException e) {
        closeQuietly(channel, e);
        throw e;
      }
    } catch (IOException e) {
      unlockAndRelease(key, entry, inProcess);
      throw new LedgerIOException("locking", lockFile, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      unlockAndRelease(key, entry, inProcess);
      throw new LockTimeoutException(lockFile, timeout, "interrupted while waiting");
    } catch (RuntimeException e) {
      unlockAndRelease(key, entry, inProcess);
      throw e;
    }
  }

  private static FileLock lockWithDeadline(FileChannel channel, Path lockFile, Duration timeout,
      long deadline) throws IOException {
    long pauseNanos = TimeUnit.MICROSECONDS.toNanos(50);
    while (true) {
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        // Only possible if something outside this class locked the file in this JVM.
        lock = null;
      }
      if (lock != null) {
        return lock;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new LockTimeoutException(lockFile, timeout, readHolder(channel));
      }
      LockSupport.parkNanos(Math.min(pauseNanos, left));
      if (Thread.interrupted()) {
        Thread.currentThread().interrupt();
        throw new LockTimeoutException(lockFile, timeout, "interrupted while waiting");
      }
      pauseNanos = Math.min(pauseNanos * 2, TimeUnit.MILLISECONDS.toNanos(5));
    }
  }

  private static Object fileKey(Path lockFile) throws IOException {
    return Files.readAttributes(lockFile, BasicFileAttributes.class).fileKey();
  }

  private static void recordHolder(FileChannel channel) throws IOException {
    byte[] line = (SELF + " since=" + Instant.now() + "\n").getBytes(StandardCharsets.UTF_8);
    // Release empties the file, so it is normally empty here; truncating an empty file still
    // costs a journaled inode update on every commit.
    if (channel.size() != 0) {
      channel.truncate(0);
    }
    SafeFiles.writeFully(channel, ByteBuffer.wrap(line), 0);
  }

  private static String readHolder(FileChannel channel) {
    try {
      ByteBuffer buffer = ByteBuffer.allocate(512);
      channel.read(buffer, 0);
      String text = new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8).trim();
      return text.isEmpty() ? null : text;
    } catch (IOException e) {
      return null;
    }
  }

  private static Path canonical(Path lockFile) {
    Path absolute = lockFile.toAbsolutePath();
    Path known = CANONICAL.get(absolute);
    if (known != null) {
      return known;
    }
    try {
      Path real = absolute.getParent().toRealPath().resolve(lockFile.getFileName().toString());
      if (CANONICAL.size() < 100_000) {
        CANONICAL.putIfAbsent(absolute, real);
      }
      return real;
    } catch (IOException e) {
      return absolute.normalize();
    }
  }

  private static Entry retain(Path key) {
    return IN_PROCESS.compute(key, (k, e) -> {
      Entry entry = e == null ? new Entry() : e;
      entry.users++;
      return entry;
    });
  }

  private static void unlockAndRelease(Path key, Entry entry, boolean locked) {
    if (locked) {
      entry.lock.unlock();
    }
    IN_PROCESS.compute(key, (k, e) -> {
      if (e == null) {
        return null;
      }
      e.users--;
      return e.users == 0 ? null : e;
    });
  }

  private static void closeQuietly(FileChannel channel, Exception primary) {
    try {
      channel.close();
    } catch (IOException e) {
      primary.addSuppressed(e);
    }
  }

  private static String describeSelf() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (IOException | RuntimeException e) {
      host = "unknown";
    }
    long pid = ProcessHandle.current().pid();
    String name = ManagementFactory.getRuntimeMXBean().getName();
    return "pid=" + pid + " host=" + host + (name.isEmpty() ? "" : " jvm=" + name);
  }

  private static final class Entry {
    final ReentrantLock lock = new ReentrantLock();
    int users; // guarded by IN_PROCESS.compute
  }

  /**
   * A held lock. Close it on the thread that acquired it; closing clears the holder line,
   * releases the OS lock, closes the channel and the in-process lock, in that order.
   */
  public static final class Held implements AutoCloseable {
    private final Path key;
    private final Entry entry;
    private final FileChannel channel;
    private final FileLock lock;
    private final Path lockFile;
    private final Object fileKey;
    private boolean closed;

    private Held(Path key, Entry entry, FileChannel channel, FileLock lock, Path lockFile,
        Object fileKey) {
      this.key = key;
      this.entry = entry;
      this.channel = channel;
      this.lock = lock;
      this.lockFile = lockFile;
      this.fileKey = fileKey;
    }

    private boolean stillNamed() throws IOException {
      try {
        return fileKey == null || fileKey.equals(fileKey(lockFile));
      } catch (NoSuchFileException e) {
        return false;
      }
    }

    /**
     * Checks that the lock file's name still refers to the file this lock holds. Call it just
     * before a commit point: if the file was deleted or replaced, another process may hold a
     * lock on the new file, and writing would race it. Costs one {@code stat}. Where the
     * platform gives no file keys, this check cannot be made and passes.
     *
     * @throws LockLostException if the file is gone or is another file now
     */
    public void verify() {
      try {
        if (!stillNamed()) {
          throw new LockLostException(lockFile, Files.exists(lockFile) ? "replaced" : "deleted");
        }
      } catch (IOException e) {
        throw new LedgerIOException("checking lock file", lockFile, e);
      }
    }

    private void releaseOnly() {
      closed = true;
      try {
        lock.release();
      } catch (IOException e) {
        LOG.debug("releasing an orphaned lock failed", e);
      }
      try {
        channel.close();
      } catch (IOException e) {
        LOG.debug("closing an orphaned lock channel failed", e);
      }
      unlockAndRelease(key, entry, true);
    }

    /** The lock file. */
    public Path lockFile() {
      return lockFile;
    }

    /**
     * Releases the lock. Never throws: by the time a lock is released the work it guarded is
     * done (a commit is durable or was refused), and a failure here must not turn that
     * outcome into an error. Clearing the holder line is best effort; if releasing the OS
     * lock fails, closing the channel releases it, and a failed close still frees the file
     * descriptor. Failures are logged.
     */
    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      IOException failure = null;
      try {
        channel.truncate(0);
      } catch (IOException e) {
        failure = e;
      }
      try {
        lock.release();
      } catch (IOException e) {
        failure = add(failure, e);
      }
      try {
        channel.close();
      } catch (IOException e) {
        failure = add(failure, e);
      }
      unlockAndRelease(key, entry, true);
      if (failure != null) {
        LOG.warn("Releasing lock {} failed; the lock is released with its channel", lockFile,
            failure);
      }
    }

    private static IOException add(IOException first, IOException next) {
      if (first == null) {
        return next;
      }
      first.addSuppressed(next);
      return first;
    }
  }
}
