package dev.ledger.artifacts.fs;

import com.google.common.base.Preconditions;
import dev.ledger.artifacts.BlobDamage;
import dev.ledger.artifacts.BlobNotFoundException;
import dev.ledger.artifacts.BlobStore;
import dev.ledger.artifacts.BlobVerification;
import dev.ledger.artifacts.internal.ArtifactMeters;
import com.google.common.io.CountingInputStream;
import dev.ledger.artifacts.ContentId;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.internal.io.FileLocks;
import dev.ledger.core.internal.io.SafeFiles;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The blobs of a {@link FileArtifactStore}, one immutable file per content id.
 *
 * <pre>
 * artifacts/blobs/sha256/&lt;first 2 hex&gt;/&lt;other 62 hex&gt;
 *     the bytes, nothing else; read-only (0400); its modification time is when it was
 *     last put, by the store clock
 * artifacts/tmp/&lt;uuid&gt;.tmp
 *     a put in progress (or crashed)
 * </pre>
 *
 * <p><b>Put.</b> The input is streamed into a new temp file while being hashed, the hashing
 * and the writing overlapped on two threads through four 256 KiB buffers
 * ({@link HashingCopy}), and with durable puts forced in the background every 16 MiB so that the
 * device writes while the rest is hashed; the temp file is forced and made read-only. Then,
 * under the store lock, it is hard-linked to its content path and the blob is stamped with
 * the store clock. The link is the commit point: it fails if the path exists, so the first
 * writer wins and a racing or later writer of the same bytes only renews the existing file's
 * time (an atomic move would replace the winner's file). The directory is forced after the
 * link, the temp name is removed either way. A crash leaves at most a temp file, which
 * garbage collection removes.
 *
 * <p><b>Why the store lock around the link.</b> Garbage collection holds the same lock while
 * it marks and sweeps, so a put (and the renewed time it gives) happens wholly before or
 * wholly after a collection, never between its decision and its delete.
 *
 * <p>Thread-safe and safe across processes.
 */
public final class FileBlobStore implements BlobStore {
  /** A durable put forces its temp file in the background each time this much more is written. */
  private static final long FLUSH_EVERY = 16L << 20;

  private final StoreLayout layout;
  private final FileArtifactStore store;

  FileBlobStore(StoreLayout layout, FileArtifactStore store) {
    this.layout = layout;
    this.store = store;
  }

  /**
   * Where a blob is (or would be) stored. Touches nothing.
   *
   * @param id the blob
   * @return its file
   * @throws NullPointerException if {@code id} is null
   */
  public Path path(ContentId id) {
    return layout.blob(Preconditions.checkNotNull(id, "id"));
  }

  @Override
  public ContentId put(byte[] bytes) {
    Preconditions.checkNotNull(bytes, "bytes");
    store.checkOpen();
    store.checkWritable("a blob put");
    return put(new ByteArrayInputStream(bytes));
  }

  @Override
  public ContentId put(Path file) {
    Preconditions.checkNotNull(file, "file");
    store.checkOpen();
    store.checkWritable("a blob put of " + file);
    try (InputStream in = Files.newInputStream(file)) {
      return put(in);
    } catch (IOException e) {
      throw new LedgerIOException("reading", file, e);
    }
  }

  @Override
  public ContentId put(InputStream in) {
    Preconditions.checkNotNull(in, "in");
    store.checkOpen();
    store.checkWritable("a blob put");
    ArtifactMeters meters = store.meters();
    if (!meters.recording()) {
      return store(in);
    }
    long start = System.nanoTime();
    CountingInputStream counted = new CountingInputStream(in);
    ContentId id;
    try {
      id = store(counted);
    } catch (RuntimeException | Error e) {
      meters.put(start, counted.getCount(), e);
      throw e;
    }
    meters.put(start, counted.getCount(), null);
    return id;
  }

  private ContentId store(InputStream in) {
    Path temp = layout.tmp().resolve(UUID.randomUUID() + ".tmp");
    ContentId id;
    try {
      id = writeTemp(in, temp);
    } catch (IOException e) {
      LedgerIOException failure = new LedgerIOException("storing a blob via", temp, e);
      deleteQuietly(temp, failure);
      throw failure;
    } catch (RuntimeException e) { // e.g. a verifying source stream that found damage
      deleteQuietly(temp, e);
      throw e;
    }
    publish(temp, id);
    return id;
  }

  private ContentId writeTemp(InputStream in, Path temp) throws IOException {
    MessageDigest digest = Sha256.newDigest();
    try (FileChannel channel = SafeFiles.open(temp,
        Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))) {
      HashingCopy.copy(in, channel, digest, store.sync() ? FLUSH_EVERY : 0);
      if (store.sync()) {
        channel.force(true);
      }
    }
    makeReadOnly(temp);
    return new ContentId(HexFormat.of().formatHex(digest.digest()));
  }

  private void publish(Path temp, ContentId id) {
    Path target;
    try {
      target = layout.blob(id);
    } catch (RuntimeException e) { // a symbolic link where the blob goes: leave nothing behind
      deleteQuietly(temp, e);
      throw e;
    }
    try {
      SafeFiles.createDirectories(target.getParent(), store.sync());
      try (FileLocks.Held lock = store.lock()) {
        SafeFiles.publishOnce(temp, target, store.sync());
        // New or already stored, the blob's age starts now (store clock), so a collection
        // spares it for the grace period; under the lock, no collection sees it in between.
        Files.setLastModifiedTime(target, FileTime.from(store.clock().instant()));
      }
    } catch (IOException e) {
      LedgerIOException failure = new LedgerIOException("publishing blob " + id + " at", target,
          e);
      deleteQuietly(temp, failure);
      throw failure;
    } catch (RuntimeException e) { // a refused link, a lock timeout: leave nothing behind
      deleteQuietly(temp, e);
      throw e;
    }
  }

  /** Makes a file read-only for its owner where POSIX permissions exist. */
  static void makeReadOnly(Path file) throws IOException {
    if (file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--------"));
    } else if (file.getFileSystem().supportedFileAttributeViews().contains("dos")) {
      Files.setAttribute(file, "dos:readonly", true);
    }
  }

  /**
   * Deletes a published (read-only) file. Where POSIX permissions exist, removal depends
   * only on the directory; elsewhere (DOS attributes) the read-only flag must go first.
   */
  static void deletePublished(Path file) throws IOException {
    if (file.getFileSystem().supportedFileAttributeViews().contains("dos")
        && !file.getFileSystem().supportedFileAttributeViews().contains("posix")
        && Files.exists(file)) {
      Files.setAttribute(file, "dos:readonly", false);
    }
    Files.deleteIfExists(file);
  }

  @Override
  public InputStream open(ContentId id) {
    store.checkOpen();
    Path path = path(id);
    try {
      return new VerifyingInputStream(Files.newInputStream(path), id, path);
    } catch (NoSuchFileException e) {
      throw new BlobNotFoundException(id, path);
    } catch (IOException e) {
      throw new LedgerIOException("opening blob", path, e);
    }
  }

  @Override
  public boolean exists(ContentId id) {
    store.checkOpen();
    return Files.isRegularFile(path(id));
  }

  @Override
  public long size(ContentId id) {
    store.checkOpen();
    Path path = path(id);
    try {
      return Files.size(path);
    } catch (NoSuchFileException e) {
      throw new BlobNotFoundException(id, path);
    } catch (IOException e) {
      throw new LedgerIOException("reading the size of blob", path, e);
    }
  }

  @Override
  public BlobVerification verify() {
    store.checkOpen();
    List<BlobDamage> damaged = new ArrayList<>();
    long[] totals = new long[2];
    try {
      for (Path fan : sorted(layout.blobs())) {
        String prefix = fan.getFileName().toString();
        if (!Files.isDirectory(fan, LinkOption.NOFOLLOW_LINKS) || !isHex(prefix, 2)) {
          damaged.add(new BlobDamage(fan, null, null, Files.isSymbolicLink(fan)
              ? "a symbolic link, not a blob fan-out directory" : "not a blob fan-out directory"));
          totals[0]++;
          continue;
        }
        for (Path file : sorted(fan)) {
          totals[0]++;
          verifyOne(file, prefix, damaged, totals);
        }
      }
    } catch (IOException e) {
      throw new LedgerIOException("verifying blobs in", layout.blobs(), e);
    }
    return new BlobVerification(totals[0], totals[1], damaged);
  }

  private static void verifyOne(Path file, String prefix, List<BlobDamage> damaged,
      long[] totals) throws IOException {
    String name = file.getFileName().toString();
    if (!isHex(name, 62)) {
      damaged.add(new BlobDamage(file, null, null, "misnamed: not a blob file name"));
      return;
    }
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      damaged.add(new BlobDamage(file, null, null, Files.isSymbolicLink(file)
          ? "a symbolic link, not a blob file" : "not a regular file"));
      return;
    }
    ContentId expected = new ContentId(prefix + name);
    long[] size = new long[1];
    String actual;
    try {
      actual = Sha256.ofFile(file, size);
    } catch (NoSuchFileException e) {
      totals[0]--; // collected while we looked
      return;
    } catch (IOException e) {
      damaged.add(new BlobDamage(file, expected, null, "unreadable: " + e));
      return;
    }
    totals[1] += size[0];
    if (!actual.equals(expected.hex())) {
      damaged.add(new BlobDamage(file, expected, actual,
          "bytes hash to sha256 " + actual + ", not to its name"));
    }
  }

  /** The entries of {@code dir} in name order; empty if it does not exist. */
  static List<Path> sorted(Path dir) throws IOException {
    List<Path> out = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      entries.forEach(out::add);
    } catch (NoSuchFileException e) {
      return out;
    }
    out.sort(null);
    return out;
  }

  static boolean isHex(String value, int length) {
    if (value.length() != length) {
      return false;
    }
    for (int i = 0; i < length; i++) {
      char c = value.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }

  private static void deleteQuietly(Path path, Exception primary) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      primary.addSuppressed(e);
    }
  }
}
