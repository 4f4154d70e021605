package dev.ledger.artifacts;

import java.io.InputStream;
import java.nio.file.Path;

/**
 * Content-addressed, immutable blobs named by the SHA-256 of their bytes.
 *
 * <p>Putting the same bytes twice, from any number of threads or processes at once, stores
 * them once and returns the same id. When {@code put} returns, the blob is stored (and, under
 * the default durability, survives a power cut). A stored blob never changes; it disappears
 * only through {@link ArtifactStore#collectGarbage} once unreferenced and older than the
 * grace period, and each {@code put} of its bytes renews its age.
 *
 * <p>Implementations are thread-safe.
 */
public interface BlobStore {
  /**
   * Stores {@code bytes}.
   *
   * @return their content id
   * @throws dev.ledger.core.LedgerIOException if storing fails (nothing is published then)
   */
  ContentId put(byte[] bytes);

  /**
   * Stores everything {@code in} yields, streaming: memory use does not grow with the size
   * of the input. The stream is read to its end but not closed.
   *
   * @return the content id of the bytes read
   * @throws dev.ledger.core.LedgerIOException if reading or storing fails
   */
  ContentId put(InputStream in);

  /**
   * Stores the content of {@code file}, streaming.
   *
   * @return its content id
   * @throws dev.ledger.core.LedgerIOException if the file cannot be read or storing fails
   */
  ContentId put(Path file);

  /**
   * Opens a blob for reading. The stream hashes what it returns and, on reaching the end,
   * throws {@link CorruptBlobException} (unchecked, from {@code read}) instead of reporting
   * end of stream if the bytes do not match {@code id}. Close it after use.
   *
   * @throws BlobNotFoundException if there is no such blob
   */
  InputStream open(ContentId id);

  /** Whether a blob with this id is stored. */
  boolean exists(ContentId id);

  /**
   * The size of a blob in bytes.
   *
   * @throws BlobNotFoundException if there is no such blob
   */
  long size(ContentId id);

  /**
   * Re-hashes every stored blob and reports each one whose bytes do not match its name, or
   * whose name is not a content id, with its path. Changes nothing.
   */
  BlobVerification verify();
}
