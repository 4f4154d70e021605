package dev.ledger.testing.fault;

/**
 * The kinds of file operation a {@link FaultyFileSystem} counts, and can fail or cut power
 * at. Each call counts once, whatever its size.
 */
public enum Op {
  /** A write to a file channel or stream ({@code write}, positional or gathering). */
  WRITE,
  /** A {@code FileChannel.force}, on a file or on a directory. */
  FORCE,
  /** A {@code Files.move}, atomic or not; counted on its target. */
  MOVE,
  /** A {@code Files.createLink} (a hard link). */
  LINK,
  /** Opening a directory listing ({@code Files.list}, {@code newDirectoryStream}). */
  LIST,
  /** Creating a file (opening one that does not exist with CREATE or CREATE_NEW) or a directory. */
  CREATE,
  /** Cutting a file shorter: {@code FileChannel.truncate} or opening with TRUNCATE_EXISTING. */
  TRUNCATE,
  /** Deleting a file or a directory. */
  DELETE
}
