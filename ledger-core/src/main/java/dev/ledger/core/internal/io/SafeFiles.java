package dev.ledger.core.internal.io;

import dev.ledger.core.SymbolicLinkException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * File primitives with the durability steps spelled out: private permissions (files 0600,
 * directories 0700 where POSIX permissions exist), atomic replacement, first-write-wins
 * publication and directory {@code force}. Everything goes through {@code java.nio.file} on
 * the {@link Path} given, so a wrapping file system sees (and can fail) every step.
 *
 * <p><b>Symbolic links.</b> A store follows no symbolic link below its base directory (the
 * base itself may be one: users link a store's directory to where the space is). Files are
 * opened with {@link LinkOption#NOFOLLOW_LINKS}, which guards the last component of a path;
 * the directories between the base and a file are checked with {@code lstat}
 * ({@link #refuseLinksBelow}) where a store resolves them. A link found either way throws
 * the unchecked {@link SymbolicLinkException} naming it, which passes through the
 * {@code catch (IOException)} of every caller untouched. The checks guard against links
 * that are there when a store looks (a copied or restored directory, a mistaken
 * {@code ln -s}); Java offers no {@code openat}, so a link swapped in between a check and an
 * open by a concurrent attacker with write access to the store is outside what they catch.
 */
public final class SafeFiles {
  private static final FileAttribute<?>[] NONE = new FileAttribute<?>[0];

  /** Numbers the unique siblings of this process. */
  private static final AtomicLong UNIQUE = new AtomicLong();

  private SafeFiles() {}

  /** The attribute making a new file owner-only, or none where POSIX permissions don't exist. */
  public static FileAttribute<?>[] privateFile(Path path) {
    return posix(path)
        ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(
            PosixFilePermissions.fromString("rw-------"))}
        : NONE;
  }

  /** The attribute making a new directory owner-only, or none without POSIX permissions. */
  public static FileAttribute<?>[] privateDirectory(Path path) {
    return posix(path)
        ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(
            PosixFilePermissions.fromString("rwx------"))}
        : NONE;
  }

  private static boolean posix(Path path) {
    return path.getFileSystem().supportedFileAttributeViews().contains("posix");
  }

  /**
   * Opens the file {@code path} with {@code options}, never through a symbolic link, creating
   * it owner-only if it is created.
   *
   * @throws SymbolicLinkException if {@code path} is a symbolic link
   */
  public static FileChannel open(Path path, Set<? extends OpenOption> options) throws IOException {
    Set<OpenOption> noFollow = new HashSet<>(options);
    noFollow.add(LinkOption.NOFOLLOW_LINKS);
    try {
      return FileChannel.open(path, noFollow, privateFile(path));
    } catch (IOException e) {
      // O_NOFOLLOW fails with ELOOP on a link (O_EXCL with EEXIST): say what it really is.
      if (isLink(path)) {
        throw new SymbolicLinkException(path);
      }
      throw e;
    }
  }

  /**
   * Opens the file {@code path} for reading, never through a symbolic link.
   *
   * @throws SymbolicLinkException if {@code path} is a symbolic link
   */
  public static FileChannel openRead(Path path) throws IOException {
    return open(path, Set.of(StandardOpenOption.READ));
  }

  /**
   * Returns {@code path} unless it is a symbolic link (one {@code lstat}); a path that does
   * not exist is returned too.
   *
   * @throws SymbolicLinkException if it is a link
   */
  public static Path refuseLink(Path path) {
    if (isLink(path)) {
      throw new SymbolicLinkException(path);
    }
    return path;
  }

  /**
   * Returns {@code path} unless it or a directory between {@code base} (excluded: the base may
   * be a link) and it is a symbolic link; an {@code lstat} per component, stopping at the
   * first that does not exist. {@code path} must be below {@code base}.
   *
   * @throws SymbolicLinkException naming the first link found
   */
  public static Path refuseLinksBelow(Path base, Path path) {
    Path relative = base.relativize(path);
    Path p = base;
    for (Path name : relative) {
      p = p.resolve(name.toString());
      BasicFileAttributes attributes = lstat(p);
      if (attributes == null) {
        break;
      }
      if (attributes.isSymbolicLink()) {
        throw new SymbolicLinkException(p);
      }
    }
    return path;
  }

  private static boolean isLink(Path path) {
    BasicFileAttributes attributes = lstat(path);
    return attributes != null && attributes.isSymbolicLink();
  }

  /** The attributes of {@code path} itself (not of a link's target), or null if unreadable. */
  private static BasicFileAttributes lstat(Path path) {
    try {
      return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * Creates {@code dir} and its missing parents, owner-only. With {@code sync}, forces each
   * parent whose entries changed, so the new directories survive a power cut. Links on the
   * way are followed: use it for a store's base, and {@link #createDirectoriesBelow} inside.
   *
   * @throws NotDirectoryException if {@code dir} or a parent exists and is not a directory
   */
  public static void createDirectories(Path dir, boolean sync) throws IOException {
    Deque<Path> missing = new ArrayDeque<>();
    for (Path p = dir.toAbsolutePath(); p != null && !Files.isDirectory(p); p = p.getParent()) {
      missing.push(p);
    }
    while (!missing.isEmpty()) {
      create(missing.pop(), sync);
    }
  }

  /**
   * Creates {@code dir} (below {@code base}) and its missing parents up to {@code base},
   * owner-only, never through a symbolic link: {@code base} must exist; every component
   * below it is checked with {@code lstat}. With {@code sync}, forces each parent whose
   * entries changed.
   *
   * @throws SymbolicLinkException if a component below {@code base} is a link
   * @throws NotDirectoryException if one exists and is not a directory
   */
  public static void createDirectoriesBelow(Path base, Path dir, boolean sync)
      throws IOException {
    Path p = base;
    for (Path name : base.relativize(dir)) {
      p = p.resolve(name.toString());
      BasicFileAttributes attributes = lstat(p);
      if (attributes == null) {
        create(p, sync);
      } else if (attributes.isSymbolicLink()) {
        throw new SymbolicLinkException(p);
      } else if (!attributes.isDirectory()) {
        throw new NotDirectoryException(p.toString());
      }
    }
  }

  private static void create(Path p, boolean sync) throws IOException {
    try {
      Files.createDirectory(p, privateDirectory(p));
    } catch (FileAlreadyExistsException e) {
      if (!Files.isDirectory(p)) {
        throw new NotDirectoryException(p.toString());
      }
      return; // a racing creator made it; it forces the parent itself
    }
    if (sync && p.getParent() != null) {
      forceDirectory(p.getParent());
    }
  }

  /**
   * Forces a directory, making the creation, rename or removal of its entries durable. On
   * platforms that cannot open a directory (Windows) this is a no-op, as there the file
   * system journals directory changes itself.
   */
  public static void forceDirectory(Path dir) throws IOException {
    FileChannel channel;
    try {
      channel = FileChannel.open(dir, StandardOpenOption.READ);
    } catch (IOException e) {
      if (posix(dir) || e instanceof NoSuchFileException) {
        throw e;
      }
      return;
    }
    try (channel) {
      channel.force(true);
    }
  }

  /**
   * Replaces {@code target} atomically with {@code content}: a reader sees the old file or
   * the new one, never a mixture, whatever the crash. Writes {@code .<name>.tmp} beside it,
   * forces it (with {@code sync}), renames it over the target, forces the directory. The
   * temp name is fixed: callers serialize writers of one target (they hold its lock).
   */
  public static void replace(Path target, byte[] content, boolean sync) throws IOException {
    replaceFile(tempSibling(target), target, content, sync);
    if (sync) {
      forceDirectory(target.getParent());
    }
  }

  /**
   * {@link #replace} through the given temp file, without forcing the directory: for a caller
   * that writes many files of one directory and forces it once. The temp file is removed if a
   * step fails.
   *
   * @param temp the temp file, a sibling of {@code target} no other writer uses at the same
   *     time (see {@link #uniqueSibling})
   * @param target the file to replace
   * @param content its new bytes
   * @param sync whether the temp file is forced before the rename
   * @throws IOException if a step fails (then {@code target} is as it was)
   */
  public static void replaceFile(Path temp, Path target, byte[] content, boolean sync)
      throws IOException {
    try (FileChannel channel = open(temp, Set.of(StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE))) {
      writeFully(channel, ByteBuffer.wrap(content), 0);
      if (sync) {
        channel.force(true);
      }
    } catch (IOException e) {
      deleteQuietly(temp, e);
      throw e;
    }
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      deleteQuietly(temp, e);
      throw e;
    }
  }


  /**
   * A hidden sibling of {@code target} no other caller gets, in this process (a counter) or
   * another (the pid): for files or directories created with {@code CREATE_NEW} by racers
   * that hold no lock. A clock is not enough: two threads can read the same nanoTime.
   *
   * @param target the file or directory the sibling stands in for
   * @param suffix appended to the name, such as {@code .tmp}
   * @return the path, {@code .<name>.<pid>.<n><suffix>}
   */
  public static Path uniqueSibling(Path target, String suffix) {
    return target.resolveSibling("." + target.getFileName() + "."
        + ProcessHandle.current().pid() + "." + UNIQUE.incrementAndGet() + suffix);
  }

  /**
   * The fixed temp name {@link #replace} uses for {@code target}, under the target's lock:
   * {@code .<name>.tmp}.
   *
   * @param target the file to be written
   * @return the temp path
   */
  public static Path tempSibling(Path target) {
    return target.resolveSibling("." + target.getFileName() + ".tmp");
  }

  /**
   * Publishes a finished, forced temp file under {@code target} unless {@code target}
   * exists: a hard link, which fails instead of replacing (an atomic move would overwrite a
   * concurrent winner). The temp file is removed either way.
   *
   * @return true if this call published, false if another writer had published first
   */
  public static boolean publishOnce(Path temp, Path target, boolean sync) throws IOException {
    boolean published;
    try {
      Files.createLink(target, temp);
      published = true;
    } catch (FileAlreadyExistsException e) {
      published = false;
    } finally {
      Files.deleteIfExists(temp);
    }
    if (sync) {
      forceDirectory(target.getParent());
    }
    return published;
  }

  /**
   * Creates {@code target} with {@code content} unless it exists, safely against racing
   * creators in other threads and processes: a uniquely named temp file is written, forced
   * (with {@code sync}) and published with {@link #publishOnce}. A racer that loses leaves
   * the winner's file untouched.
   *
   * @return true if this call created the file
   */
  public static boolean createOnce(Path target, byte[] content, boolean sync) throws IOException {
    Path temp = uniqueSibling(target, ".tmp");
    try (FileChannel channel = open(temp, Set.of(StandardOpenOption.CREATE_NEW,
        StandardOpenOption.WRITE))) {
      writeFully(channel, ByteBuffer.wrap(content), 0);
      if (sync) {
        channel.force(true);
      }
    } catch (IOException e) {
      deleteQuietly(temp, e);
      throw e;
    }
    return publishOnce(temp, target, sync);
  }

  /** Writes all of {@code buffer} at {@code position}, looping over short writes. */
  public static void writeFully(FileChannel channel, ByteBuffer buffer, long position)
      throws IOException {
    long at = position;
    while (buffer.hasRemaining()) {
      at += channel.write(buffer, at);
    }
  }

  /**
   * Reads a whole file of at most {@code maxBytes}, never through a symbolic link.
   *
   * @throws FileTooLargeException if the file is larger
   * @throws SymbolicLinkException if {@code path} is a symbolic link
   */
  public static byte[] readBounded(Path path, long maxBytes) throws IOException {
    try (FileChannel channel = openRead(path)) {
      long size = channel.size();
      if (size > maxBytes) {
        throw new FileTooLargeException(path, size, maxBytes);
      }
      // Read straight into the array returned: a checkpoint may be hundreds of MB, and a
      // second buffer of its size would double what the read allocates.
      byte[] out = new byte[(int) size];
      ByteBuffer buffer = ByteBuffer.wrap(out);
      while (buffer.hasRemaining()) {
        if (channel.read(buffer, buffer.position()) < 0) {
          break; // shrank while reading: return what exists
        }
      }
      return buffer.position() == out.length ? out
          : java.util.Arrays.copyOf(out, buffer.position());
    }
  }

  private static void deleteQuietly(Path path, IOException primary) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      primary.addSuppressed(e);
    }
  }

  /**
   * Opens a whole file of at most {@code maxBytes} as a stream, never through a symbolic link:
   * what {@link #readBounded} reads, without an array of the file's size. The stream ends
   * after the bytes the file had when it was opened. The caller closes it.
   *
   * @param path the file
   * @param maxBytes the most bytes accepted
   * @param size receives the file's size when it was opened (element 0)
   * @return the stream over the file's bytes
   * @throws FileTooLargeException if the file is larger
   * @throws SymbolicLinkException if {@code path} is a symbolic link
   * @throws java.nio.file.NoSuchFileException if it does not exist
   */
  public static java.io.InputStream openBounded(Path path, long maxBytes, long[] size)
      throws IOException {
    FileChannel channel = openRead(path);
    try {
      long length = channel.size();
      if (length > maxBytes) {
        throw new FileTooLargeException(path, length, maxBytes);
      }
      size[0] = length;
      return com.google.common.io.ByteStreams.limit(
          java.nio.channels.Channels.newInputStream(channel), length);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /** A file was larger than the caller's bound. */
  public static final class FileTooLargeException extends IOException {
    private static final long serialVersionUID = 1L;
    private final long size;

    FileTooLargeException(Path path, long size, long max) {
      super(path + " has " + size + " bytes; at most " + max + " are read");
      this.size = size;
    }

    /** The size of the file when it was refused. */
    public long size() {
      return size;
    }
  }
}
