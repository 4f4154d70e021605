package dev.ledger.testing.fault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.StandardCopyOption;
import java.nio.file.WatchService;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * A {@code java.nio.file} file system over the default one that fails operations on plan and
 * simulates power cuts, so that a test can check what code on top of it (a ledger store, or
 * a user's code on a store) promises when the disk fails or the machine loses power. Open
 * the code under test on {@link #root()} or a path below it; every path derived from it
 * stays on this file system, and every file operation the code makes through
 * {@code java.nio.file} ({@code Files}, {@code FileChannel}) is counted by its {@link Op}.
 *
 * <h2>Faults</h2>
 * <ul>
 *   <li>{@link #failAt failAt(op, n, persistence)}: the n-th operation of kind {@code op}
 *       from now throws an {@code IOException} ("Input/output error") instead of happening;
 *       with {@link Persistence#PERSISTENT} every later one of that kind fails too, with
 *       {@link Persistence#TRANSIENT} only that one. The failed operation changes nothing.
 *   <li>{@link #limitBytes limitBytes(bytes)}: writes fail with "No space left on device"
 *       once they would take more than {@code bytes} more bytes in total (a write that does
 *       not fit changes nothing), as on a full disk.
 *   <li>{@link #powerCutAt powerCutAt(op, n, random)}: instead of performing the n-th
 *       operation of kind {@code op} from now, power is cut ({@link #cutPower}) and the
 *       operation throws an {@code IOException}.
 *   <li>{@link #cutPower cutPower(random)}: power is cut now, between two operations.
 * </ul>
 * {@link #count} and {@link #injected} tell how many operations of a kind were seen and how
 * many faults were injected, so that a loop over n knows when the code completed without
 * reaching the n-th operation. {@link #clearFaults} removes every plan.
 *
 * <h2>The power-cut model</h2>
 * The model tracks what a real disk may still lose: file content changed since that file's
 * last {@code FileChannel.force}, and directory entries (creations of files and directories,
 * moves, hard links, deletions of files) made since the directory's last {@code force}. A cut
 * <ul>
 *   <li><b>keeps</b> whatever was forced: the content of a file as of its last force, and
 *       the entries of a directory as of its last force. That is all POSIX promises, and the
 *       only thing code under test may rely on;
 *   <li><b>keeps</b> the bytes of a file before its first change since its last force (and,
 *       if the file was cut shorter since, before the shortest size it was cut to): an
 *       overwrite in the middle of a file, or an append, never damages what precedes it;
 *   <li><b>may lose</b>, for each directory, a suffix of its unforced entry changes: a random
 *       number of the latest ones are undone, newest first (a created file disappears, a move
 *       is reverted and the file it replaced comes back, a deleted file comes back with its
 *       forced content, and with its directory if that was removed after it);
 *   <li><b>may damage</b> each file with unforced content, from its first changed byte on, in
 *       one of five ways chosen at random: reverted to its forced content; kept as written;
 *       torn (the changes kept up to a random byte, the forced content after it); zeros
 *       where it grew past its forced length (or, for a file cut shorter since its force,
 *       zeros over everything after the cut: the new size reached the disk, the data did
 *       not); or kept as written with one bit flipped in the changed part;
 *   <li><b>invalidates</b> every channel opened before it: their writes and forces throw, as
 *       a process that lost its machine cannot write on.
 * </ul>
 * A file never forced has no forced content: if its entry survives, all of it is damaged as
 * above. After a cut the file system tracks nothing: the files on disk are what a
 * reboot would find, and code reopened on {@link #root()} (or on the real directory)
 * sees them. The random choices come from the {@code Random} given to the cut, so a seed
 * reproduces them.
 *
 * <h2>Not modelled</h2>
 * {@code Files.copy} and {@code FileChannel.transferFrom} throw
 * {@code UnsupportedOperationException}, as do writable memory maps and watch services.
 * Reads and attribute changes pass through uncounted; a deleted directory is counted but
 * not restored by a cut. Operations on the real directory (through {@link #real}) bypass the
 * model entirely.
 *
 * <p>Plans, counts and the durability records are guarded by this object, so background
 * threads of the code under test may use the file system (which operation is the n-th is
 * then up to the scheduler). Two threads changing the same file at once are not modelled:
 * what a cut keeps of that file is then undefined.
 */
public final class FaultyFileSystem extends FileSystem {
  private static final byte[] NEVER_FORCED = new byte[0];

  private final FileSystem delegate;
  private final FaultyFileSystemProvider provider;
  private final Path realRoot;
  private final Map<Op, Long> counts = new EnumMap<>(Op.class);
  private final Map<Op, Rule> rules = new EnumMap<>(Op.class);
  private final Map<Path, byte[]> durable = new HashMap<>();
  /** Files cut shorter since their last force, with the least size they were cut to. */
  private final Map<Path, Long> truncated = new HashMap<>();
  private final Map<Path, List<DirOp>> pending = new HashMap<>();
  private long bytesLeft = Long.MAX_VALUE;
  private long generation;
  private long injected;
  private Random powerCutRandom;
  private Consumer<String> cutListener;

  private record Rule(long at, boolean persistent, boolean powerCut) {}

  private sealed interface DirOp {}

  private record Created(Path path, boolean directory) implements DirOp {}

  private record Linked(Path path) implements DirOp {}

  private record Renamed(Path from, Path to, byte[] replaced) implements DirOp {}

  private record Deleted(Path path, byte[] content) implements DirOp {}

  private FaultyFileSystem(Path realRoot) {
    this.delegate = FileSystems.getDefault();
    this.provider = new FaultyFileSystemProvider(delegate.provider());
    this.provider.attach(this);
    this.realRoot = realRoot.toAbsolutePath();
  }

  /**
   * A faulty file system over the existing directory {@code realRoot}, with no fault planned.
   *
   * @param realRoot a directory of the default file system; its content is used as it is
   * @return the file system, whose {@link #root()} is {@code realRoot}
   * @throws NullPointerException if {@code realRoot} is null
   * @throws IllegalArgumentException if {@code realRoot} is not a directory of the default
   *     file system
   */
  public static FaultyFileSystem over(Path realRoot) {
    Objects.requireNonNull(realRoot, "realRoot");
    if (realRoot.getFileSystem() != FileSystems.getDefault() || !Files.isDirectory(realRoot)) {
      throw new IllegalArgumentException("not a directory of the default file system: "
          + realRoot);
    }
    return new FaultyFileSystem(realRoot);
  }

  /**
   * The root directory, as a path of this file system: open the code under test on it or
   * below it.
   *
   * @return the wrapped root directory
   */
  public Path root() {
    return new FaultyPath(this, realRoot);
  }

  /**
   * The real path under a path of a faulty file system: for preparing or inspecting files
   * directly, bypassing faults, counts and the power-cut model.
   *
   * @param path a path of a {@code FaultyFileSystem}
   * @return the same path on the default file system
   * @throws IllegalArgumentException if {@code path} is not a path of a faulty file system
   */
  public static Path real(Path path) {
    return FaultyPath.unwrap(path);
  }

  // ------------------------------------------------------------------ plans

  /**
   * Plans an I/O error: the {@code nth} operation of kind {@code op} from now (1 being the
   * next one) throws an {@code IOException} instead of happening, and, if
   * {@code persistence} is {@link Persistence#PERSISTENT}, so does every later one. Replaces
   * any earlier plan for {@code op}.
   *
   * @param op the kind of operation to fail
   * @param nth which one, counted from now, at least 1
   * @param persistence whether the failure stays
   * @throws NullPointerException if {@code op} or {@code persistence} is null
   * @throws IllegalArgumentException if {@code nth} is less than 1
   */
  public synchronized void failAt(Op op, long nth, Persistence persistence) {
    Objects.requireNonNull(op, "op");
    Objects.requireNonNull(persistence, "persistence");
    checkNth(nth);
    rules.put(op, new Rule(count(op) + nth, persistence == Persistence.PERSISTENT, false));
  }

  /**
   * Plans a power cut: instead of performing the {@code nth} operation of kind {@code op} from
   * now, power is cut as by {@link #cutPower} with {@code random}, and that operation throws
   * an {@code IOException}. Replaces any earlier plan for {@code op}; the plan is used once.
   *
   * @param op the kind of operation at which power fails
   * @param nth which one, counted from now, at least 1
   * @param random the source of the cut's choices (seed it to reproduce them)
   * @throws NullPointerException if {@code op} or {@code random} is null
   * @throws IllegalArgumentException if {@code nth} is less than 1
   */
  public synchronized void powerCutAt(Op op, long nth, Random random) {
    Objects.requireNonNull(op, "op");
    Objects.requireNonNull(random, "random");
    checkNth(nth);
    rules.put(op, new Rule(count(op) + nth, false, true));
    powerCutRandom = random;
  }

  private static void checkNth(long nth) {
    if (nth < 1) {
      throw new IllegalArgumentException("nth must be at least 1: " + nth);
    }
  }

  /**
   * Lets only {@code bytes} more bytes be written in total; a write that would exceed them
   * throws "No space left on device" and writes nothing, as on a full disk.
   *
   * @param bytes the bytes that may still be written, zero or more
   * @throws IllegalArgumentException if {@code bytes} is negative
   */
  public synchronized void limitBytes(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("bytes must be zero or more: " + bytes);
    }
    bytesLeft = bytes;
  }

  /** Removes every planned fault and the byte limit; counts and durability records stay. */
  public synchronized void clearFaults() {
    rules.clear();
    bytesLeft = Long.MAX_VALUE;
  }

  /**
   * The operations of kind {@code op} seen so far, including failed ones.
   *
   * @param op the kind of operation
   * @return how many were attempted on this file system
   * @throws NullPointerException if {@code op} is null
   */
  public synchronized long count(Op op) {
    Objects.requireNonNull(op, "op");
    return counts.getOrDefault(op, 0L);
  }

  /**
   * The faults injected so far: planned failures, full-disk failures and planned power cuts
   * (not the cuts made by calling {@link #cutPower} directly).
   *
   * @return how many operations were failed or cut
   */
  public synchronized long injected() {
    return injected;
  }

  /** For {@link FaultLoop}: receives the report of each planned power cut. */
  synchronized void onPowerCut(Consumer<String> listener) {
    cutListener = listener;
  }

  synchronized long generation() {
    return generation;
  }

  synchronized void check(Op op, Path path, long bytes) throws IOException {
    long n = counts.merge(op, 1L, Long::sum);
    Rule rule = rules.get(op);
    if (rule != null && (n == rule.at() || (rule.persistent() && n > rule.at()))) {
      injected++;
      if (rule.powerCut()) {
        rules.remove(op);
        String report = cutPower(powerCutRandom);
        if (cutListener != null) {
          cutListener.accept(report);
        }
        throw new IOException("Input/output error (power cut during " + op + " of " + path + ")");
      }
      throw new IOException("Input/output error (injected " + op + " fault #" + n + " on "
          + path + ")");
    }
    if (op == Op.WRITE) {
      if (bytes > bytesLeft) {
        injected++;
        throw new IOException("No space left on device (" + path + ")");
      }
      bytesLeft -= bytes;
    }
  }

  // ------------------------------------------------------------------ durability tracking

  /** Before the first change to a file since its last force, remember its durable content. */
  synchronized void beforeModify(Path path) {
    Path key = path.toAbsolutePath().normalize();
    if (!durable.containsKey(key)) {
      durable.put(key, read(key));
    }
  }

  /** A file is cut shorter: until its next force, what follows the cut may read as zeros. */
  synchronized void truncating(Path path, long size) {
    truncated.merge(path.toAbsolutePath().normalize(), size, Math::min);
  }

  /**
   * Records a completed force of {@code path} by a channel opened in generation {@code of};
   * throws, recording nothing, if power was cut since (by another thread, while the force
   * ran): the cut kept what was forced before it, and the force never returns to its caller.
   */
  synchronized void forced(Path path, boolean directory, long of) throws IOException {
    if (generation != of) {
      throw new IOException("Input/output error (power was cut during this force): " + path);
    }
    Path key = path.toAbsolutePath().normalize();
    if (directory) {
      pending.remove(key);
    } else {
      durable.remove(key);
      truncated.remove(key);
    }
  }

  synchronized void created(Path path, boolean directory) {
    Path key = path.toAbsolutePath().normalize();
    pending.computeIfAbsent(key.getParent(), k -> new ArrayList<>())
        .add(new Created(key, directory));
    if (!directory) {
      durable.put(key, NEVER_FORCED);
    }
  }

  synchronized void linked(Path link, Path existing) {
    Path key = link.toAbsolutePath().normalize();
    pending.computeIfAbsent(key.getParent(), k -> new ArrayList<>()).add(new Linked(key));
    // A hard link shares the file's content: what was not forced through one name is not
    // durable through the other either.
    byte[] content = durable.get(existing.toAbsolutePath().normalize());
    if (content != null) {
      durable.put(key, content);
    }
  }

  synchronized void moving(Path from, Path to) {
    Path source = from.toAbsolutePath().normalize();
    Path target = to.toAbsolutePath().normalize();
    byte[] replaced = Files.isRegularFile(target) ? durableContentOf(target) : null;
    pending.computeIfAbsent(target.getParent(), k -> new ArrayList<>())
        .add(new Renamed(source, target, replaced));
    byte[] sourceDurable = durable.remove(source);
    durable.remove(target);
    if (sourceDurable != null) {
      durable.put(target, sourceDurable);
    }
  }

  synchronized void deleting(Path path) {
    Path key = path.toAbsolutePath().normalize();
    if (Files.isRegularFile(key)) {
      pending.computeIfAbsent(key.getParent(), k -> new ArrayList<>())
          .add(new Deleted(key, durableContentOf(key)));
      durable.remove(key);
    }
  }

  private byte[] durableContentOf(Path key) {
    byte[] tracked = durable.get(key);
    return tracked != null ? tracked : read(key);
  }

  private static byte[] read(Path key) {
    try {
      return Files.exists(key) ? Files.readAllBytes(key) : NEVER_FORCED;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * What a power cut now would be sure to keep of {@code file}'s content, without cutting:
   * its content as of its last force if it changed since (nothing if it was never forced),
   * else its current content. Changes nothing and counts nothing, so a test can check, at the
   * moment code under test acknowledges something, that the bytes it relies on were forced.
   * Like the model, it takes a force for covering every write made before the force
   * returned.
   *
   * @param file a path of this file system, or the real path under it
   * @return the content sure to survive; empty if the file does not exist
   * @throws NullPointerException if {@code file} is null
   * @throws java.io.UncheckedIOException if the real file cannot be read
   */
  public synchronized byte[] forcedContent(Path file) {
    Objects.requireNonNull(file, "file");
    Path real = file.getFileSystem() == this ? FaultyPath.unwrap(file) : file;
    Path key = real.toAbsolutePath().normalize();
    byte[] tracked = durable.get(key);
    return tracked != null ? tracked.clone() : read(key);
  }

  /**
   * Cuts power now, as the class comment describes: undoes a random suffix of each
   * directory's unforced entry changes, damages unforced file content at random, and
   * invalidates every channel opened before. Afterwards nothing is tracked, as after a
   * reboot; planned faults stay.
   *
   * @param random the source of the cut's choices (seed it to reproduce them)
   * @return what was lost, one line per undone entry or damaged file (empty if nothing
   *     unforced was pending), for failure messages
   * @throws NullPointerException if {@code random} is null
   * @throws java.io.UncheckedIOException if the real files cannot be read or rewritten
   */
  public synchronized String cutPower(Random random) {
    Objects.requireNonNull(random, "random");
    StringBuilder report = new StringBuilder();
    try {
      for (Map.Entry<Path, List<DirOp>> entry : pending.entrySet()) {
        List<DirOp> ops = entry.getValue();
        int keep = random.nextInt(ops.size() + 1);
        for (int i = ops.size() - 1; i >= keep; i--) {
          undo(ops.get(i), report);
        }
      }
      for (Map.Entry<Path, byte[]> entry : durable.entrySet()) {
        Path file = entry.getKey();
        if (!Files.isRegularFile(file)) {
          continue;
        }
        byte[] current = Files.readAllBytes(file);
        byte[] forced = entry.getValue();
        if (Arrays.equals(current, forced)) {
          continue;
        }
        byte[] after = damage(forced, current, truncated.getOrDefault(file, -1L), random);
        Files.write(file, after);
        report.append(String.format("%s: %d -> %d bytes (forced %d)%n", file, current.length,
            after.length, forced.length));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    pending.clear();
    durable.clear();
    truncated.clear();
    generation++;
    return report.toString();
  }

  /**
   * Damage to a file changed since its last force. Bytes before its first change survive, and
   * before {@code cutTo} if it was cut shorter to that size since (else -1). From there on the
   * file is: as forced; as written; torn (the changes up to a point, the forced bytes after
   * it); zeros (past the forced length, or, if it was cut, over everything written after the
   * cut: the size reached the disk, the data did not); or as written with one flipped bit.
   */
  private static byte[] damage(byte[] forced, byte[] current, long cutTo, Random random) {
    int from = Arrays.mismatch(forced, current);
    if (cutTo >= 0) {
      from = (int) Math.min(from, cutTo);
    }
    switch (random.nextInt(5)) {
      case 0:
        return forced;
      case 1:
        return current;
      case 2: {
        int torn = from + random.nextInt(current.length - from + 1);
        byte[] after = Arrays.copyOf(current, Math.max(torn, forced.length));
        if (torn < forced.length) {
          System.arraycopy(forced, torn, after, torn, forced.length - torn);
        }
        return after;
      }
      case 3: {
        if (cutTo >= 0) {
          byte[] zeroed = current.clone();
          Arrays.fill(zeroed, from, zeroed.length, (byte) 0);
          return zeroed;
        }
        if (current.length <= forced.length) {
          return forced;
        }
        return Arrays.copyOf(forced, forced.length + 1 + random.nextInt(current.length
            - forced.length));
      }
      default: {
        byte[] flipped = current.clone();
        if (flipped.length > from) {
          int at = from + random.nextInt(flipped.length - from);
          flipped[at] ^= (byte) (1 << random.nextInt(8));
        }
        return flipped;
      }
    }
  }

  private void undo(DirOp op, StringBuilder report) throws IOException {
    if (op instanceof Created created) {
      deleteRecursively(created.path());
      durable.remove(created.path());
      report.append("undone create ").append(created.path()).append('\n');
    } else if (op instanceof Linked linked) {
      Files.deleteIfExists(linked.path());
      report.append("undone link ").append(linked.path()).append('\n');
    } else if (op instanceof Renamed renamed) {
      if (Files.exists(renamed.to())) {
        Files.move(renamed.to(), renamed.from(), StandardCopyOption.REPLACE_EXISTING);
        byte[] moved = durable.remove(renamed.to());
        if (moved != null) {
          durable.put(renamed.from(), moved);
        }
      }
      if (renamed.replaced() != null) {
        Files.write(renamed.to(), renamed.replaced());
      }
      report.append("undone rename ").append(renamed.from()).append(" -> ")
          .append(renamed.to()).append('\n');
    } else if (op instanceof Deleted deleted) {
      // Its directory may have been removed after it, unforced too: then it comes back.
      Files.createDirectories(deleted.path().getParent());
      Files.write(deleted.path(), deleted.content());
      report.append("undone delete ").append(deleted.path()).append('\n');
    }
  }

  private static void deleteRecursively(Path path) throws IOException {
    if (!Files.exists(path)) {
      return;
    }
    if (Files.isDirectory(path)) {
      try (Stream<Path> children = Files.list(path)) {
        for (Path child : children.toList()) {
          deleteRecursively(child);
        }
      }
    }
    Files.delete(path);
  }

  // ------------------------------------------------------------------ FileSystem

  @Override
  public java.nio.file.spi.FileSystemProvider provider() {
    return provider;
  }

  @Override
  public void close() {
    // The default file system cannot be closed; nothing to release.
  }

  @Override
  public boolean isOpen() {
    return true;
  }

  @Override
  public boolean isReadOnly() {
    return false;
  }

  @Override
  public String getSeparator() {
    return delegate.getSeparator();
  }

  @Override
  public Iterable<Path> getRootDirectories() {
    List<Path> roots = new ArrayList<>();
    delegate.getRootDirectories().forEach(r -> roots.add(new FaultyPath(this, r)));
    return roots;
  }

  @Override
  public Iterable<FileStore> getFileStores() {
    return delegate.getFileStores();
  }

  @Override
  public Set<String> supportedFileAttributeViews() {
    return delegate.supportedFileAttributeViews();
  }

  @Override
  public Path getPath(String first, String... more) {
    return new FaultyPath(this, delegate.getPath(first, more));
  }

  @Override
  public PathMatcher getPathMatcher(String syntaxAndPattern) {
    PathMatcher inner = delegate.getPathMatcher(syntaxAndPattern);
    return path -> inner.matches(FaultyPath.unwrap(path));
  }

  @Override
  public UserPrincipalLookupService getUserPrincipalLookupService() {
    return delegate.getUserPrincipalLookupService();
  }

  @Override
  public WatchService newWatchService() {
    throw new UnsupportedOperationException("watching a faulty file system");
  }
}
