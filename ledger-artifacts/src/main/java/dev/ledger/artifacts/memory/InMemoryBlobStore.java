package dev.ledger.artifacts.memory;

import com.google.common.base.Preconditions;
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
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The blobs of an {@link InMemoryArtifactStore}: byte arrays keyed by content id, each with
 * the store-clock time of its last put. Holds whole blobs in memory, so it is for tests and
 * small data; streaming puts buffer the stream. Thread-safe (guarded by the store).
 */
public final class InMemoryBlobStore implements BlobStore {
  private final InMemoryArtifactStore store;
  private final Map<ContentId, Entry> blobs = new TreeMap<>();

  record Entry(byte[] bytes, Instant lastPut) {}

  InMemoryBlobStore(InMemoryArtifactStore store) {
    this.store = store;
  }

  @Override
  public ContentId put(byte[] bytes) {
    Preconditions.checkNotNull(bytes, "bytes");
    ContentId id = new ContentId(com.google.common.hash.Hashing.sha256().hashBytes(bytes)
        .toString());
    synchronized (store) {
      store.checkOpen();
      Entry old = blobs.get(id);
      blobs.put(id, new Entry(old == null ? bytes.clone() : old.bytes(), store.now()));
    }
    return id;
  }

  @Override
  public ContentId put(InputStream in) {
    Preconditions.checkNotNull(in, "in");
    store.checkOpen();
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
    synchronized (store) {
      store.checkOpen();
      return blobs.containsKey(id);
    }
  }

  @Override
  public long size(ContentId id) {
    return entry(id).bytes().length;
  }

  /** Held bytes are private copies and cannot be damaged: reports counts, never damage. */
  @Override
  public BlobVerification verify() {
    synchronized (store) {
      store.checkOpen();
      long bytes = blobs.values().stream().mapToLong(e -> e.bytes().length).sum();
      return new BlobVerification(blobs.size(), bytes, List.of());
    }
  }

  private Entry entry(ContentId id) {
    Preconditions.checkNotNull(id, "id");
    synchronized (store) {
      store.checkOpen();
      Entry entry = blobs.get(id);
      if (entry == null) {
        throw new BlobNotFoundException(id, null);
      }
      return entry;
    }
  }

  /** The live map; callers hold the store's monitor. */
  Map<ContentId, Entry> entries() {
    return blobs;
  }
}
