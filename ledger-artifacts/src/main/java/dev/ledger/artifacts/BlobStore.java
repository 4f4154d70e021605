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
   * @param bytes the bytes; not kept (a put copies what it stores)
   * @return their content id
   * @throws ReadOnlyArtifactStoreException if the store is read-only
   * @throws dev.ledger.core.LockTimeoutException if the store lock is not had in time
   * @throws dev.ledger.core.LedgerIOException if storing fails (nothing is published then)
   * @throws NullPointerException if {@code bytes} is null
   */
  ContentId put(byte[] bytes);

  /**
   * Stores everything {@code in} yields, streaming: memory use does not grow with the size
   * of the input. The stream is read to its end but not closed.
   *
   * @param in the bytes to store
   * @return the content id of the bytes read
   * @throws ReadOnlyArtifactStoreException if the store is read-only (nothing is read)
   * @throws dev.ledger.core.LockTimeoutException if the store lock is not had in time
   * @throws dev.ledger.core.LedgerIOException if reading or storing fails
   * @throws NullPointerException if {@code in} is null
   */
  ContentId put(InputStream in);

  /**
   * Stores the content of {@code file}, streaming.
   *
   * @param file the file to store; read once, not kept
   * @return its content id
   * @throws ReadOnlyArtifactStoreException if the store is read-only (nothing is read)
   * @throws dev.ledger.core.LockTimeoutException if the store lock is not had in time
   * @throws dev.ledger.core.LedgerIOException if the file cannot be read or storing fails
   * @throws NullPointerException if {@code file} is null
   */
  ContentId put(Path file);

  /**
   * Opens a blob for reading. The stream hashes what it returns and, on reaching the end,
   * throws {@link CorruptBlobException} (unchecked, from {@code read}) instead of reporting
   * end of stream if the bytes do not match {@code id}. Close it after use.
   *
   * @param id the blob
   * @return a stream of its bytes
   * @throws BlobNotFoundException if there is no such blob
   * @throws dev.ledger.core.LedgerIOException if it cannot be opened
   * @throws NullPointerException if {@code id} is null
   */
  InputStream open(ContentId id);

  /**
   * Whether a blob is stored.
   *
   * @param id the blob
   * @return true if a blob with this id is stored
   * @throws NullPointerException if {@code id} is null
   */
  boolean exists(ContentId id);

  /**
   * The size of a blob.
   *
   * @param id the blob
   * @return its size in bytes
   * @throws BlobNotFoundException if there is no such blob
   * @throws dev.ledger.core.LedgerIOException if its size cannot be read
   * @throws NullPointerException if {@code id} is null
   */
  long size(ContentId id);

  /**
   * Re-hashes every stored blob and reports each one whose bytes do not match its name, or
   * whose name is not a content id, with its path. Changes nothing; works on read-only
   * stores.
   *
   * @return what was checked and what is damaged
   * @throws dev.ledger.core.LedgerIOException if the blobs cannot be listed
   */
  BlobVerification verify();
}
