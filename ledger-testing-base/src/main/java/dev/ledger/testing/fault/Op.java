package dev.ledger.testing.fault;

/** The operations a {@link FaultyFileSystem} can fail. */
public enum Op {
  /** A write to a file channel (each call counts once). */
  WRITE,
  /** A {@code FileChannel.force}, on a file or a directory. */
  FORCE,
  /** A {@code Files.move}. */
  MOVE,
  /** A {@code Files.createLink}. */
  LINK,
  /** Opening a directory listing. */
  LIST,
  /** Creating a file or a directory. */
  CREATE,
  /** A truncation. */
  TRUNCATE,
  /** A deletion. */
  DELETE
}
