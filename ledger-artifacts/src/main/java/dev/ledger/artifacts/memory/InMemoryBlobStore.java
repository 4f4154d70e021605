package dev.ledger.artifacts.memory;

import com.google.common.base.Preconditions;
import com.google.common.hash.Hashing;
import dev.ledger.artifacts.internal.ArtifactMeters;
import dev.ledger.artifacts.BlobNotFoundException;
import dev.ledger.artifacts.BlobStore;
import dev.ledger.artifacts.BlobVerification;
import dev.ledger.artifacts.ContentId;
import dev.ledger.core.LedgerIOException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The blobs of an {@link InMemoryArtifactStore}: byte arrays keyed by content id, each with
 * the store-clock time of its last put. Holds whole blobs in memory, so it is for tests and
 * small data; streaming puts buffer the stream. Thread-safe (guarded by the store's
 * contents). The blobs of a read-only view refuse puts with
 * {@link dev.ledger.artifacts.ReadOnlyArtifactStoreException}.
 */
public final class InMemoryBlobStore implements BlobStore {
  private final InMemoryArtifactStore store;
  private final MemoryContents contents;

  InMemoryBlobStore(InMemoryArtifactStore store, MemoryContents contents) {
    this.store = store;
    this.contents = contents;
  }

  @Override
  public ContentId put(byte[] bytes) {
    Preconditions.checkNotNull(bytes, "bytes");
    store.checkOpen();
    store.checkWritable("a blob put");
    ArtifactMeters meters = store.meters();
    if (!meters.recording()) {
      return store(bytes);
    }
    long start = System.nanoTime();
    ContentId id;
    try {
      id = store(bytes);
    } catch (RuntimeException | Error e) {
      meters.put(start, bytes.length, e);
      throw e;
    }
    meters.put(start, bytes.length, null);
    return id;
  }

  private ContentId store(byte[] bytes) {
    ContentId id = new ContentId(Hashing.sha256().hashBytes(bytes).toString());
    synchronized (contents) {
      store.checkOpen();
      MemoryContents.Entry old = contents.blobs.get(id);
      contents.blobs.put(id,
          new MemoryContents.Entry(old == null ? bytes.clone() : old.bytes(), store.now()));
    }
    return id;
  }

  @Override
  public ContentId put(InputStream in) {
    Preconditions.checkNotNull(in, "in");
    store.checkOpen();
    store.checkWritable("a blob put");
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    try {
      in.transferTo(buffer);
    } catch (IOException e) {
      throw new LedgerIOException("reading a blob stream for", Path.of("memory"), e);
    }
    return put(buffer.toByteArray());
  }

  @Override
  public ContentId put(Path file) {
    Preconditions.checkNotNull(file, "file");
    store.checkOpen();
    store.checkWritable("a blob put of " + file);
    try {
      return put(Files.readAllBytes(file));
    } catch (IOException e) {
      throw new LedgerIOException("reading", file, e);
    }
  }

  @Override
  public InputStream open(ContentId id) {
    return new ByteArrayInputStream(entry(id).bytes());
  }

  @Override
  public boolean exists(ContentId id) {
    Preconditions.checkNotNull(id, "id");
    synchronized (contents) {
      store.checkOpen();
      return contents.blobs.containsKey(id);
    }
  }

  @Override
  public long size(ContentId id) {
    return entry(id).bytes().length;
  }

  /**
   * Held bytes are private copies and cannot be damaged: reports counts, never damage.
   *
   * @return the number of blobs and their total size, with no damage
   */
  @Override
  public BlobVerification verify() {
    synchronized (contents) {
      store.checkOpen();
      long bytes = contents.blobs.values().stream().mapToLong(e -> e.bytes().length).sum();
      return new BlobVerification(contents.blobs.size(), bytes, List.of());
    }
  }

  private MemoryContents.Entry entry(ContentId id) {
    Preconditions.checkNotNull(id, "id");
    synchronized (contents) {
      store.checkOpen();
      MemoryContents.Entry entry = contents.blobs.get(id);
      if (entry == null) {
        throw new BlobNotFoundException(id, null);
      }
      return entry;
    }
  }
}
