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
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A {@code java.nio.file} file system over the default one that fails operations on plan and
 * simulates power cuts. Stores are opened on its {@link #root()}.
 *
 * <p><b>Faults.</b> {@link #failAt} fails the n-th operation of a kind from now with an
 * {@code IOException}, once (transient) or from then on (persistent); {@link #limitBytes}
 * makes writes fail as a full disk would; {@link #powerCutAt} cuts power instead of
 * performing the n-th operation.
 *
 * <p><b>Power cut model.</b> It tracks what a real disk could lose: file content written
 * since the file's last {@code force}, and directory entries (creations, renames, links,
 * deletions) made since the directory's last {@code force}. {@link #cutPower} then, at
 * random, keeps a prefix of each directory's pending entry changes and undoes the rest in
 * reverse order, and damages each file with unforced content: reverted to its forced
 * content, kept whole, torn (changes kept up to a point), zeros where it grew or was written
 * after a cut, or kept with one flipped bit in the changed part. Bytes before a file's first
 * change since its force, and before any cut since, survive. Channels opened before the cut refuse
 * further writes. Forced data and forced directory entries always survive: that is the
 * contract the store may rely on, and nothing more.
 *
 * <p>Not thread-safe against concurrent mutation of the same files; tests drive it from one
 * thread at a time.
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

  /** A faulty file system whose {@link #root()} is {@code realRoot} (which must exist). */
  public static FaultyFileSystem over(Path realRoot) {
    return new FaultyFileSystem(realRoot);
  }

  /** The wrapped root directory: open stores on it or below it. */
  public Path root() {
    return new FaultyPath(this, realRoot);
  }

  /** The real path under a wrapped one, for inspecting files directly. */
  public static Path real(Path path) {
    return FaultyPath.unwrap(path);
  }

  // ------------------------------------------------------------------ plans

  /** Fails the {@code nth} (1-based) operation of {@code op} from now, and later ones if persistent. */
  public synchronized void failAt(Op op, long nth, boolean persistent) {
    rules.put(op, new Rule(count(op) + nth, persistent, false));
  }

  /** Cuts power (see {@link #cutPower}) instead of performing the {@code nth} {@code op} from now. */
  public synchronized void powerCutAt(Op op, long nth, Random random) {
    rules.put(op, new Rule(count(op) + nth, false, true));
    powerCutRandom = random;
  }

  /** Lets only {@code bytes} more bytes be written; later writes fail as on a full disk. */
  public synchronized void limitBytes(long bytes) {
    bytesLeft = bytes;
  }

  /** Removes every planned fault and byte limit. */
  public synchronized void clearFaults() {
    rules.clear();
    bytesLeft = Long.MAX_VALUE;
  }

  /** Operations of {@code op} seen so far. */
  public synchronized long count(Op op) {
    return counts.getOrDefault(op, 0L);
  }

  /** Faults injected so far (failures and power cuts). */
  public synchronized long injected() {
    return injected;
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
        cutPower(powerCutRandom);
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

  synchronized void forced(Path path, boolean directory) {
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
   * Cuts power now: undoes a random suffix of each directory's unforced entry changes,
   * damages unforced file content at random (see the class comment), and invalidates every
   * channel opened before. Afterwards the tracked state is empty, as after a reboot.
   *
   * @return a description of what was lost, for failure messages
   */
  public synchronized String cutPower(Random random) {
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
