package dev.ledger.core.spi;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Objects;

/**
 * A checkpointed state as the bytes of its JSON, for a reader that finds its way through them
 * itself instead of taking a tree ({@link PatchLog#rawCheckpoint}). The bytes should be one
 * JSON value but are not checked (a damaged file's may not be): the reader checks them. The
 * array is shared and must not be changed.
 *
 * @param bytes the array holding the state's JSON (perhaps a whole file's bytes)
 * @param offset where the state's JSON starts in it
 * @param length how many bytes it has
 * @param revision the revision it is the state of
 * @param updatedAt when that revision was committed
 * @param stateVersion the state version it was written with
 * @param file the file the bytes were read from, for a reader's report of damage it finds
 *     later; null when the backend keeps no such file
 */
public record RawState(byte[] bytes, int offset, int length, long revision, Instant updatedAt,
    int stateVersion, Path file) {
  /**
   * Checks the arguments.
   *
   * @param bytes the array holding the state's JSON
   * @param offset where it starts
   * @param length its length
   * @param revision its revision
   * @param updatedAt that revision's commit time
   * @param stateVersion its state version
   * @param file its file, or null
   * @throws NullPointerException if {@code bytes} or {@code updatedAt} is null
   * @throws IndexOutOfBoundsException if the range is not inside {@code bytes}
   */
  public RawState {
    Objects.requireNonNull(bytes, "bytes");
    Objects.requireNonNull(updatedAt, "updatedAt");
    Objects.checkFromIndexSize(offset, length, bytes.length);
  }
}
