package dev.ledger.testing.base;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a directory tree held at one moment: every path below a root with a one-line
 * description of its entry, so that a test can assert that a refused operation changed
 * nothing on disk, or that two runs wrote the same tree.
 *
 * <pre>{@code
 * DirectorySnapshot before = DirectorySnapshot.of(base);
 * assertThatThrownBy(() -> ledger.commit(3, state)).isInstanceOf(RevisionConflictException.class);
 * assertThat(before.diff(DirectorySnapshot.of(base))).isEmpty();
 * }</pre>
 *
 * <p>Paths are relative to the root, with {@code /} between names on every platform; the
 * root itself is {@code .}. A description is one of
 *
 * <pre>
 *   dir [PERMISSIONS] [@MODIFIED]                        a directory
 *   N bytes[, sha256 HEX] [PERMISSIONS] [@MODIFIED]      a regular file
 *   link -> TARGET                                       a symbolic link, never followed
 *   other [@MODIFIED]                                    anything else (a socket, a pipe)
 * </pre>
 *
 * where the bracketed parts are there when the {@link Options} ask for them: the
 * content's digest ({@link Aspect#CONTENT}), the POSIX permissions such as
 * {@code rw-------} ({@link Aspect#PERMISSIONS}, where the file system has them) and the
 * last-modified time in {@link java.nio.file.attribute.FileTime#toString()} form
 * ({@link Aspect#FILE_TIMES}, {@link Aspect#DIRECTORY_TIMES}). A file's size is always
 * there. Symbolic links, the root included, are described by their target and never
 * followed, so a snapshot never reads outside its root.
 *
 * <p>Two snapshots are equal when they hold the same paths with the same descriptions; the
 * root they were taken of does not count, so trees in two places compare. Compare only
 * snapshots taken with the same options. A snapshot is an immutable value; taking one reads
 * every file it hashes and is not atomic, so nothing should write to the tree meanwhile.
 */
public final class DirectorySnapshot {
  /**
   * What a snapshot records of each entry, beyond its kind, a file's size and a link's target.
   */
  public enum Aspect {
    /** The SHA-256 digest of each regular file's bytes. */
    CONTENT,
    /** The last-modified time of each regular file (and of anything that is not a directory
     *  or a link). */
    FILE_TIMES,
    /** The last-modified time of each directory, which changes when an entry is created,
     *  renamed or deleted in it, even if it was deleted again before the next snapshot. */
    DIRECTORY_TIMES,
    /** The POSIX permissions of each file and directory, where the file system has them. */
    PERMISSIONS
  }

  /**
   * Which {@link Aspect}s a snapshot records, and the file names whose times it leaves out.
   *
   * <p>Leaving out the times of a name is for files that an operation may touch before it
   * is refused without changing them, such as a lock file that a writer locks (writing and
   * then clearing its holder line) before it finds why it must refuse: their size and, with
   * {@link Aspect#CONTENT}, their content still count.
   *
   * @param aspects what is recorded; copied
   * @param untimedNames file names (the last element of a path, such as {@code .lock})
   *     whose last-modified time is not recorded; copied
   */
  public record Options(Set<Aspect> aspects, Set<String> untimedNames) {
    /**
     * Checks and copies the components.
     *
     * @param aspects what is recorded; copied
     * @param untimedNames file names whose last-modified time is not recorded; copied
     * @throws NullPointerException if a set or one of its elements is null
     */
    public Options {
      aspects = aspects.isEmpty() ? Collections.unmodifiableSet(EnumSet.noneOf(Aspect.class))
          : Collections.unmodifiableSet(EnumSet.copyOf(aspects));
      untimedNames = Collections.unmodifiableSet(new TreeSet<>(untimedNames));
    }

    /**
     * Options recording the given aspects, with every time that they ask for.
     *
     * @param aspects what to record; none records kinds, sizes and link targets only
     * @return the options
     * @throws NullPointerException if an aspect is null
     */
    public static Options of(Aspect... aspects) {
      return new Options(new HashSet<>(Arrays.asList(aspects)), Set.of());
    }

    /**
     * The default: each file's content and last-modified time (not directories' times, not
     * permissions).
     *
     * @return {@link Aspect#CONTENT} and {@link Aspect#FILE_TIMES}
     */
    public static Options defaults() {
      return of(Aspect.CONTENT, Aspect.FILE_TIMES);
    }

    /**
     * These options, also leaving out the last-modified time of every entry with one of the
     * given file names.
     *
     * @param names file names, such as {@code .lock}
     * @return the new options
     * @throws NullPointerException if a name is null
     */
    public Options ignoringTimesOf(String... names) {
      Set<String> all = new TreeSet<>(untimedNames);
      all.addAll(List.of(names));
      return new Options(aspects, all);
    }

    boolean records(Aspect aspect) {
      return aspects.contains(aspect);
    }

    boolean timed(Path path) {
      Path name = path.getFileName();
      return name == null || !untimedNames.contains(name.toString());
    }
  }

  private static final DirectorySnapshot NONE = new DirectorySnapshot(new TreeMap<>());

  private final SortedMap<String, String> entries;

  private DirectorySnapshot(SortedMap<String, String> entries) {
    this.entries = Collections.unmodifiableSortedMap(entries);
  }

  /**
   * Takes a snapshot of {@code root} with the {@link Options#defaults() default options}:
   * each file's content and last-modified time.
   *
   * @param root the directory (or file, or link) to describe, with everything below it
   * @return the snapshot
   * @throws NullPointerException if {@code root} is null
   * @throws java.nio.file.NoSuchFileException if {@code root} does not exist
   * @throws IOException if an entry cannot be read, for example because it was deleted while
   *     the snapshot was taken
   */
  public static DirectorySnapshot of(Path root) throws IOException {
    return of(root, Options.defaults());
  }

  /**
   * Takes a snapshot of {@code root}, recording what {@code options} ask for.
   *
   * @param root the directory (or file, or link) to describe, with everything below it
   * @param options what to record of each entry
   * @return the snapshot
   * @throws NullPointerException if an argument is null
   * @throws java.nio.file.NoSuchFileException if {@code root} does not exist
   * @throws IOException if an entry cannot be read, for example because it was deleted while
   *     the snapshot was taken
   */
  public static DirectorySnapshot of(Path root, Options options) throws IOException {
    Objects.requireNonNull(root, "root");
    Objects.requireNonNull(options, "options");
    SortedMap<String, String> entries = new TreeMap<>();
    // Files.walkFileTree without FOLLOW_LINKS reports a link (the root included) as a file
    // with link attributes, so nothing outside the root is ever read.
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs)
          throws IOException {
        entries.put(name(root, dir), describe(dir, attrs, options));
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        entries.put(name(root, file), describe(file, attrs, options));
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
        throw e;
      }
    });
    return new DirectorySnapshot(entries);
  }

  /**
   * The snapshot of a directory that does not exist: no entries at all (a directory that
   * exists and is empty has one, {@code .}). Against it, {@link #diff} lists every path of a
   * tree as added, so a test can check that a refused call did not create its directory.
   *
   * @return the empty snapshot
   */
  public static DirectorySnapshot none() {
    return NONE;
  }

  /**
   * Every path of the tree with its description, in path order.
   *
   * @return an unmodifiable map from relative path ({@code .} for the root) to description
   */
  public SortedMap<String, String> entries() {
    return entries;
  }

  /**
   * This snapshot without one path, for an entry that an operation is allowed to create or
   * change. Only that entry goes; entries below it stay.
   *
   * @param path the relative path, with {@code /} between names, as in {@link #entries()}
   * @return a snapshot without {@code path}; this one if it has no such path
   * @throws NullPointerException if {@code path} is null
   */
  public DirectorySnapshot without(String path) {
    Objects.requireNonNull(path, "path");
    if (!entries.containsKey(path)) {
      return this;
    }
    SortedMap<String, String> fewer = new TreeMap<>(entries);
    fewer.remove(path);
    return new DirectorySnapshot(fewer);
  }

  /**
   * What changed from this snapshot to {@code later}: one line per path, in path order,
   * each one of
   *
   * <pre>
   *   added PATH: DESCRIPTION
   *   removed PATH: DESCRIPTION
   *   changed PATH: BEFORE -> AFTER
   * </pre>
   *
   * Lines are separated by {@code \n}. The text is empty exactly when the snapshots are
   * equal, so {@code assertThat(before.diff(after)).isEmpty()} fails with a message that says
   * what changed.
   *
   * @param later the snapshot to compare with, taken with the same options
   * @return the differences, or the empty string if there are none
   * @throws NullPointerException if {@code later} is null
   */
  public String diff(DirectorySnapshot later) {
    Objects.requireNonNull(later, "later");
    Set<String> paths = new TreeSet<>(entries.keySet());
    paths.addAll(later.entries.keySet());
    List<String> lines = new ArrayList<>();
    for (String path : paths) {
      String before = entries.get(path);
      String after = later.entries.get(path);
      if (before == null) {
        lines.add("added " + path + ": " + after);
      } else if (after == null) {
        lines.add("removed " + path + ": " + before);
      } else if (!before.equals(after)) {
        lines.add("changed " + path + ": " + before + " -> " + after);
      }
    }
    return String.join("\n", lines);
  }

  /**
   * Equal when the other is a snapshot with the same paths and descriptions, wherever the
   * two were taken.
   *
   * @param other the object to compare with
   * @return whether the two describe the same tree
   */
  @Override
  public boolean equals(Object other) {
    return other instanceof DirectorySnapshot that && entries.equals(that.entries);
  }

  /**
   * A hash of the paths and descriptions, consistent with {@link #equals}.
   *
   * @return the hash code
   */
  @Override
  public int hashCode() {
    return entries.hashCode();
  }

  /**
   * Every entry, one {@code PATH: DESCRIPTION} per line, so that an assertion on two
   * snapshots shows both trees.
   *
   * @return the multi-line description
   */
  @Override
  public String toString() {
    StringBuilder out = new StringBuilder("DirectorySnapshot[").append(entries.size())
        .append(entries.size() == 1 ? " entry]" : " entries]");
    entries.forEach((path, description) ->
        out.append("\n  ").append(path).append(": ").append(description));
    return out.toString();
  }

  private static String name(Path root, Path path) {
    Path relative = root.relativize(path);
    if (relative.toString().isEmpty()) {
      return ".";
    }
    List<String> names = new ArrayList<>();
    relative.forEach(name -> names.add(name.toString()));
    return String.join("/", names);
  }

  private static String describe(Path path, BasicFileAttributes attrs, Options options)
      throws IOException {
    if (attrs.isSymbolicLink()) {
      return "link -> " + Files.readSymbolicLink(path);
    }
    StringBuilder out = new StringBuilder();
    boolean timed;
    if (attrs.isDirectory()) {
      out.append("dir");
      timed = options.records(Aspect.DIRECTORY_TIMES);
    } else if (attrs.isRegularFile()) {
      out.append(attrs.size()).append(" bytes");
      if (options.records(Aspect.CONTENT)) {
        out.append(", sha256 ").append(sha256(path));
      }
      timed = options.records(Aspect.FILE_TIMES);
    } else {
      out.append("other");
      timed = options.records(Aspect.FILE_TIMES);
    }
    if (options.records(Aspect.PERMISSIONS)
        && path.getFileSystem().supportedFileAttributeViews().contains("posix")) {
      out.append(' ').append(PosixFilePermissions.toString(Files.readAttributes(path,
          PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS).permissions()));
    }
    if (timed && options.timed(path)) {
      out.append(" @").append(attrs.lastModifiedTime());
    }
    return out.toString();
  }

  private static String sha256(Path file) throws IOException {
    MessageDigest digest;
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
    byte[] buffer = new byte[64 * 1024];
    try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
      for (int n; (n = in.read(buffer)) > 0; ) {
        digest.update(buffer, 0, n);
      }
    }
    return HexFormat.of().formatHex(digest.digest());
  }
}
