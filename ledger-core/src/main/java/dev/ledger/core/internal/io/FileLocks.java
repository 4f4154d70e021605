package dev.ledger.core.internal.io;

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
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Exclusive locks on lock files, safe across threads and processes.
 *
 * <p>A {@code FileChannel} lock belongs to the whole JVM: a second lock of the same file from
 * the same JVM throws {@code OverlappingFileLockException}, and closing any channel to the
 * file may drop the lock. So a lock is taken in two steps: first an in-process
 * {@link ReentrantLock} per canonical lock-file path (shared by every store instance in the
 * JVM), then the OS lock through the one channel this JVM has on that file. The channel is
 * opened and closed only under the in-process lock or when its last user leaves, so closing
 * it can never drop a lock another thread holds. A writer may {@link #retain} the channel
 * between acquisitions (saving an open, a close and two writes per commit). The OS releases
 * the lock when the process dies, so there are no stale locks to clean up.
 *
 * <p>The lock file names its last acquirer in one line ({@code pid=... host=... jvm=...});
 * an acquirer rewrites it only when it names another process, and a waiter that times out
 * reports it. The last user in a JVM empties it (so a closed store's lock files are empty),
 * unless it releases with {@link Held#closeKeepingHolderLine} (an idle writer parked). The
 * file itself is never deleted: deleting it would let two processes lock two different
 * inodes under one name; an acquirer checks after locking, and a writer again before its
 * commit point, that the name still refers to the file it locked.
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
  /**
   * Real paths of the directories lock files were found in, and of their ancestors (see
   * {@link #realDirectory}); as stale as {@link #CANONICAL}, with the same consequence.
   */
  private static final ConcurrentHashMap<Path, Path> REAL_DIRECTORIES = new ConcurrentHashMap<>();
  /** What each of the two caches above keeps at most. */
  private static final int MAX_CACHED = 100_000;
  /**
   * The number of the last removal of each lock file's directory through this JVM
   * ({@link Held#markRemoved}), by canonical lock path; see {@link Held#removal}. Bounded by
   * {@link #MAX_CACHED}: when full it is emptied, and every lock then reads
   * {@link #forgottenRemovals}, so that no holder takes a forgotten removal for none.
   */
  private static final ConcurrentHashMap<Path, Long> REMOVALS = new ConcurrentHashMap<>();
  private static final AtomicLong REMOVAL_NUMBERS = new AtomicLong();
  private static volatile long forgottenRemovals;
  private static final String SELF = describeSelf();
  /** Numbers the acquisitions of this JVM (see {@link Held#undisturbedSince}); never 0. */
  private static final AtomicLong ACQUISITIONS = new AtomicLong();
  private static final byte[] HOLDER_LINE = (SELF + "\n").getBytes(StandardCharsets.UTF_8);
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
    return acquire(lockFile, timeout, 0);
  }

  /**
   * As {@link #acquire(Path, Duration)}, for a holder that took this lock last as acquisition
   * {@code since} (0 if none) and calls {@link Held#verify} before it writes anything under
   * it. If the new acquisition is {@linkplain Held#undisturbedSince undisturbed since} then,
   * on the channel kept open since ({@link #retain}), the check that the name still refers
   * to the locked file is left to that {@code verify}: only a writer that ignores the lock
   * can have replaced the file meanwhile (any holder of it writes its own holder line), and
   * the {@code stat} it costs is the dearest system call of a commit. A {@code verify} that
   * finds the file replaced makes the next acquisition open the file afresh.
   *
   * @throws LockTimeoutException naming the file and the holder when the deadline passes
   * @throws LedgerIOException if the lock file cannot be opened or locked
   */
  public static Held acquire(Path lockFile, Duration timeout, long since) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Held held = tryAcquire(lockFile, timeout, deadline, since);
      if (held != null) {
        return held;
      }
    }
  }

  /**
   * Keeps the lock file's channel open between acquisitions until the returned handle is
   * closed. A writer that commits often holds one for its life: each acquisition then costs
   * a lock call, a {@code stat} and a read instead of opening the file, writing and clearing
   * the holder line, and closing it.
   */
  public static Retained retain(Path lockFile) {
    Path key = canonical(lockFile);
    return new Retained(key, retainEntry(key));
  }

  /**
   * The number of the last removal through this JVM of the directory of {@code lockFile}, as
   * {@link Held#removal} gives it, without taking the lock: a reader that opened a view of
   * what the directory held compares it with the number it saw then.
   */
  public static long removal(Path lockFile) {
    return REMOVALS.getOrDefault(canonical(lockFile), forgottenRemovals);
  }

  /** One attempt; null if the file was replaced between opening and locking it. */
  private static Held tryAcquire(Path lockFile, Duration timeout, long deadline, long since) {
    Path key = canonical(lockFile);
    Entry entry = retainEntry(key);
    if (entry.lock.isHeldByCurrentThread()) {
      release(key, entry, false);
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
      boolean kept = entry.channel != null && entry.channel.isOpen();
      if (kept && entry.orphaned) {
        // A verify found the name refers to another file now: no OS lock of this JVM is on
        // the kept channel (its holder released it), so it closes safely.
        closeChannel(entry, null);
        kept = false;
      }
      if (!kept) {
        // Opened and closed only under the in-process lock or with no user left: no other
        // channel of this JVM can hold the OS lock when this one closes.
        entry.channel = SafeFiles.open(lockFile, Set.of(StandardOpenOption.CREATE,
            StandardOpenOption.READ, StandardOpenOption.WRITE));
        entry.fileKey = fileKey(lockFile);
      }
      FileLock lock;
      try {
        lock = lockWithDeadline(entry.channel, lockFile, timeout, deadline);
      } catch (IOException e) {
        if (!kept) {
          throw e;
        }
        // The kept channel broke (an interrupt closed it, the device failed under it): start
        // over once with a fresh one; if that fails too, the error is reported.
        closeChannel(entry, e);
        release(key, entry, true);
        return null;
      }
      Held held = new Held(key, entry, lock, lockFile);
      boolean ownLine;
      try {
        ownLine = recordHolder(entry.channel);
      } catch (IOException e) {
        if (!kept) {
          throw e;
        }
        held.releaseOnly();
        return null;
      }
      boolean undisturbed = kept && ownLine && since != 0 && entry.lastAcquisition == since;
      if (!undisturbed && !held.stillNamed()) {
        // Replaced since this channel was opened: it locks an orphaned file (and the line
        // just written there is never read). Start over.
        held.releaseOnly();
        return null;
      }
      held.previous = ownLine ? entry.lastAcquisition : 0;
      entry.lastAcquisition = held.acquisition;
      return held;
    } catch (IOException e) {
      closeChannel(entry, e);
      release(key, entry, inProcess);
      throw new LedgerIOException("locking", lockFile, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      release(key, entry, inProcess);
      throw new LockTimeoutException(lockFile, timeout, "interrupted while waiting");
    } catch (RuntimeException e) {
      release(key, entry, inProcess);
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

  /** Empties the file if it holds this process's line and nobody holds the lock. */
  private static void clearOwnHolderLine(FileChannel channel) {
    try {
      FileLock lock = channel.tryLock();
      if (lock == null) {
        return;
      }
      try {
        if (holdsOwnLine(channel)) {
          channel.truncate(0);
        }
      } finally {
        lock.release();
      }
    } catch (IOException | OverlappingFileLockException e) {
      LOG.debug("clearing the holder line failed", e);
    }
  }

  /**
   * Whether the lock file holds exactly this process's holder line: -1 if it does, else how
   * many bytes it holds (at most one more than the line). Reads instead of asking the size:
   * an {@code fstat} costs far more than its own time when it runs between a write and an
   * {@code fdatasync} (measured: about 80 us per commit on ext4 in a VM; a {@code pread}
   * costs nothing extra). One {@code pread} of one byte more than the line: a regular file
   * reads short only at its end, so a second call to see the end of file would add a system
   * call per commit and tell nothing.
   */
  private static int ownLineOrLength(FileChannel channel) throws IOException {
    ByteBuffer present = ByteBuffer.allocate(HOLDER_LINE.length + 1);
    channel.read(present, 0);
    boolean own = present.position() == HOLDER_LINE.length
        && java.util.Arrays.equals(present.array(), 0, HOLDER_LINE.length, HOLDER_LINE, 0,
            HOLDER_LINE.length);
    return own ? -1 : present.position();
  }

  private static boolean holdsOwnLine(FileChannel channel) throws IOException {
    return ownLineOrLength(channel) < 0;
  }

  /**
   * Writes this process's holder line unless the file already holds exactly it; returns
   * whether it did (no other process took the lock since this one last held it).
   */
  private static boolean recordHolder(FileChannel channel) throws IOException {
    int length = ownLineOrLength(channel);
    if (length < 0) {
      return true;
    }
    if (length != 0) {
      channel.truncate(0);
    }
    SafeFiles.writeFully(channel, ByteBuffer.wrap(HOLDER_LINE), 0);
    return false;
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
      Path real = realDirectory(absolute.getParent()).resolve(lockFile.getFileName().toString());
      if (CANONICAL.size() < MAX_CACHED) {
        CANONICAL.putIfAbsent(absolute, real);
      }
      return real;
    } catch (IOException e) {
      return absolute.normalize();
    }
  }

  /**
   * The real path of the absolute directory {@code dir}: its parent's (known, or resolved
   * the same way), then its own name if it is no link (one {@code lstat}), so that the locks
   * of many ledgers in one directory cost one {@code lstat} each, not a {@code readlink} per
   * component of the path. A path with {@code .} or {@code ..}, or a link, is resolved whole.
   */
  private static Path realDirectory(Path dir) throws IOException {
    Path known = REAL_DIRECTORIES.get(dir);
    if (known != null) {
      return known;
    }
    Path parent = dir.getParent();
    Path name = dir.getFileName();
    Path real;
    if (parent == null || name == null || name.toString().equals(".")
        || name.toString().equals("..")) {
      real = dir.toRealPath();
    } else {
      Path realParent = realDirectory(parent);
      BasicFileAttributes attributes = Files.readAttributes(dir, BasicFileAttributes.class,
          LinkOption.NOFOLLOW_LINKS);
      real = attributes.isSymbolicLink() ? dir.toRealPath()
          : realParent.resolve(name.toString());
    }
    if (REAL_DIRECTORIES.size() < MAX_CACHED) {
      REAL_DIRECTORIES.putIfAbsent(dir, real);
    }
    return real;
  }

  private static Entry retainEntry(Path key) {
    return IN_PROCESS.compute(key, (k, e) -> {
      Entry entry = e == null ? new Entry() : e;
      entry.users++;
      return entry;
    });
  }

  /**
   * Unlocks the in-process lock if held and drops one user; the last user closes the
   * channel, inside the map's update for this key, so no new user can open another channel
   * to the file while this one closes (closing any channel may drop the JVM's OS lock).
   */
  private static void release(Path key, Entry entry, boolean locked) {
    if (locked) {
      entry.lock.unlock();
    }
    IN_PROCESS.compute(key, (k, e) -> {
      if (e == null) {
        return null;
      }
      e.users--;
      if (e.users > 0) {
        return e;
      }
      closeChannel(e, null);
      return null;
    });
  }

  private static void closeChannel(Entry entry, Exception primary) {
    FileChannel channel = entry.channel;
    entry.channel = null;
    entry.fileKey = null;
    entry.orphaned = false;
    if (channel == null) {
      return;
    }
    try {
      channel.close();
    } catch (IOException e) {
      if (primary != null) {
        primary.addSuppressed(e);
      } else {
        LOG.debug("closing a lock channel failed", e);
      }
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
    // A random run id: two processes with one pid and host name (containers sharing a volume)
    // must not take each other's line for their own (see Held#undisturbedSince).
    String run = Long.toHexString(new SecureRandom().nextLong());
    return "pid=" + pid + " host=" + host + (name.isEmpty() ? "" : " jvm=" + name) + " run="
        + run;
  }

  private static final class Entry {
    final ReentrantLock lock = new ReentrantLock();
    int users; // guarded by IN_PROCESS.compute
    /** The one channel this JVM has on the file; guarded by {@code lock} (or no users). */
    FileChannel channel;
    /** The file key {@code channel} was opened on. */
    Object fileKey;
    /** The number of the last acquisition of this lock in this JVM; guarded by {@code lock}. */
    long lastAcquisition;
    /** Whether a verify found {@code channel}'s file no longer named; guarded by {@code lock}. */
    boolean orphaned;
  }

  /** Keeps a lock file's channel open between acquisitions; see {@link #retain}. */
  public static final class Retained implements AutoCloseable {
    private final Path key;
    private final Entry entry;
    private boolean closed;

    private Retained(Path key, Entry entry) {
      this.key = key;
      this.entry = entry;
    }

    /**
     * Stops keeping the channel open; the last user clears this process's holder line (if
     * it can lock the file without waiting) and closes the channel. Idempotent.
     */
    @Override
    public synchronized void close() {
      if (closed) {
        return;
      }
      closed = true;
      entry.lock.lock();
      try {
        FileChannel channel = entry.channel;
        if (entry.users == 1 && channel != null && channel.isOpen()) {
          clearOwnHolderLine(channel);
        }
      } finally {
        entry.lock.unlock();
      }
      release(key, entry, false);
    }
  }

  /**
   * A held lock. Close it on the thread that acquired it; closing clears the holder line,
   * releases the OS lock, closes the channel and the in-process lock, in that order.
   */
  public static final class Held implements AutoCloseable {
    private final Path key;
    private final Entry entry;
    private final FileLock lock;
    private final Path lockFile;
    private final long acquisition = ACQUISITIONS.incrementAndGet();
    /**
     * The acquisition this one followed, if the lock file still held this process's line
     * when it was taken; else 0.
     */
    private long previous;
    private boolean closed;

    private Held(Path key, Entry entry, FileLock lock, Path lockFile) {
      this.key = key;
      this.entry = entry;
      this.lock = lock;
      this.lockFile = lockFile;
    }

    /** This acquisition's number: unique in this JVM, never 0. */
    public long acquisition() {
      return acquisition;
    }

    /**
     * Whether this lock was taken right after acquisition {@code earlier} (an
     * {@link #acquisition()} of this JVM) was released, with no other holder in between: no
     * other acquisition of the lock in this JVM came between them, and the lock file still
     * held this process's holder line when this one took it. Every acquirer, in any process,
     * writes its own line (or finds it) before it returns, and leaves it or empties the file
     * when it goes, so another process's acquisition in between leaves the file without this
     * line. A writer that left its files consistent under {@code earlier} then knows
     * that nobody who takes this lock changed them since. Costs nothing: the line is read
     * while the lock is taken. It says nothing of writers that ignore the lock, or of a file
     * replaced under its name ({@link #verify} checks that).
     */
    public boolean undisturbedSince(long earlier) {
      return earlier != 0 && previous == earlier;
    }

    private boolean stillNamed() throws IOException {
      try {
        return entry.fileKey == null || entry.fileKey.equals(fileKey(lockFile));
      } catch (NoSuchFileException e) {
        return false;
      }
    }

    /**
     * The identity ({@code BasicFileAttributes.fileKey()}) of the lock file this lock holds,
     * checked against the lock file's name when the lock was taken. A writer that sees it
     * change between two acquisitions knows the ledger's directory was replaced (deleted,
     * archived or recreated) since, and must not trust what it cached of the old one.
     *
     * @return the key, or null where the platform gives none
     */
    public Object lockedFileKey() {
      return entry.fileKey;
    }

    /**
     * The number of the last removal of this lock file's directory through this JVM (a
     * delete or an archive, {@link #markRemoved}), or 0. A holder that cached what the
     * directory held compares it with the number it saw then: the lock file's key alone
     * cannot tell a directory removed and created again, because the new lock file often
     * gets the removed one's inode number.
     */
    public long removal() {
      return REMOVALS.getOrDefault(key, forgottenRemovals);
    }

    /**
     * Records that the directory of this lock file was removed (moved away) under this lock:
     * every later {@link #removal} of it in this JVM gives a new number.
     */
    public void markRemoved() {
      if (REMOVALS.size() >= MAX_CACHED) {
        synchronized (REMOVALS) {
          if (REMOVALS.size() >= MAX_CACHED) {
            forgottenRemovals = REMOVAL_NUMBERS.incrementAndGet();
            REMOVALS.clear();
          }
        }
      }
      REMOVALS.put(key, REMOVAL_NUMBERS.incrementAndGet());
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
          entry.orphaned = true;
          throw new LockLostException(lockFile, Files.exists(lockFile) ? "replaced" : "deleted");
        }
      } catch (IOException e) {
        throw new LedgerIOException("checking lock file", lockFile, e);
      }
    }

    /** Gives up a lock on a file that is no longer the lock file's name. */
    private void releaseOnly() {
      closed = true;
      try {
        lock.release();
      } catch (IOException e) {
        LOG.debug("releasing an orphaned lock failed", e);
      }
      closeChannel(entry, null);
      release(key, entry, true);
    }

    /**
     * Releases the lock. Never throws: by the time a lock is released the work it guarded is
     * done (a commit is durable or was refused), and a failure here must not turn that
     * outcome into an error. The last user in this JVM clears the holder line (so a closed
     * store's lock file is empty) and closes the channel; while a {@link Retained} keeps the channel,
     * the line stays for the next acquisition. If releasing the OS lock fails, closing the
     * channel releases it. Failures are logged.
     */
    @Override
    public void close() {
      close(false);
    }

    /**
     * As {@link #close}, but a last user leaves this process's holder line in the lock file
     * instead of emptying it: for a writer that lets go of its files while idle (parking),
     * whose next acquisition in this JVM then finds its line and writes nothing. Emptying the
     * file and writing the line again changed the lock file's size twice per round trip, two
     * inode changes that rode the next {@code fdatasync}'s file-system journal commit. The
     * line names a process that no longer holds the lock; another acquirer, in any process,
     * replaces it as it replaces any other process's line, so it never counts as
     * {@linkplain #undisturbedSince undisturbed} (this JVM's numbering of the lock starts over
     * once its last user leaves). A closed store still empties its lock files ({@link #close}).
     * Never throws, as {@link #close}.
     */
    public void closeKeepingHolderLine() {
      close(true);
    }

    private void close(boolean keepLine) {
      if (closed) {
        return;
      }
      closed = true;
      IOException failure = null;
      FileChannel channel = entry.channel;
      if (!keepLine && entry.users == 1 && channel != null) {
        try {
          channel.truncate(0);
        } catch (IOException e) {
          failure = e;
        }
      }
      try {
        lock.release();
      } catch (IOException e) {
        failure = add(failure, e);
        closeChannel(entry, e);
      }
      release(key, entry, true);
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
