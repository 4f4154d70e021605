package dev.ledger.testing.fault;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;

/**
 * A file channel of a {@link FaultyFileSystem}: counts and fails writes, forces and
 * truncations as planned, records what a force made durable, and refuses to write after a
 * power cut it did not survive.
 */
final class FaultyFileChannel extends FileChannel {
  private final FaultyFileSystem fs;
  private final FileChannel delegate;
  private final Path path;
  private final boolean directory;
  private final long generation;

  FaultyFileChannel(FaultyFileSystem fs, FileChannel delegate, Path path, boolean directory) {
    this.fs = fs;
    this.delegate = delegate;
    this.path = path;
    this.directory = directory;
    this.generation = fs.generation();
  }

  private void beforeMutation(Op op, long bytes) throws IOException {
    if (generation != fs.generation()) {
      throw new IOException("Input/output error (power was cut under this channel): " + path);
    }
    fs.check(op, path, bytes);
    fs.beforeModify(path);
  }

  @Override
  public int read(ByteBuffer dst) throws IOException {
    return delegate.read(dst);
  }

  @Override
  public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
    return delegate.read(dsts, offset, length);
  }

  @Override
  public int write(ByteBuffer src) throws IOException {
    beforeMutation(Op.WRITE, src.remaining());
    return delegate.write(src);
  }

  @Override
  public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
    long total = 0;
    for (int i = offset; i < offset + length; i++) {
      total += srcs[i].remaining();
    }
    beforeMutation(Op.WRITE, total);
    return delegate.write(srcs, offset, length);
  }

  @Override
  public long position() throws IOException {
    return delegate.position();
  }

  @Override
  public FileChannel position(long newPosition) throws IOException {
    delegate.position(newPosition);
    return this;
  }

  @Override
  public long size() throws IOException {
    return delegate.size();
  }

  @Override
  public FileChannel truncate(long size) throws IOException {
    if (size < delegate.size()) {
      beforeMutation(Op.TRUNCATE, 0);
      fs.truncating(path, size);
    }
    delegate.truncate(size);
    return this;
  }

  @Override
  public void force(boolean metaData) throws IOException {
    if (generation != fs.generation()) {
      throw new IOException("Input/output error (power was cut under this channel): " + path);
    }
    fs.check(Op.FORCE, path, 0);
    delegate.force(metaData);
    // A cut made by another thread while this force ran happened before it completed: the
    // cut kept the content as of the last completed force, so this one must not succeed.
    fs.forced(path, directory, generation);
  }

  @Override
  public long transferTo(long position, long count, WritableByteChannel target)
      throws IOException {
    return delegate.transferTo(position, count, target);
  }

  @Override
  public long transferFrom(ReadableByteChannel src, long position, long count)
      throws IOException {
    throw new UnsupportedOperationException("transferFrom is not modelled");
  }

  @Override
  public int read(ByteBuffer dst, long position) throws IOException {
    return delegate.read(dst, position);
  }

  @Override
  public int write(ByteBuffer src, long position) throws IOException {
    beforeMutation(Op.WRITE, src.remaining());
    return delegate.write(src, position);
  }

  @Override
  public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
    if (mode != MapMode.READ_ONLY) {
      throw new UnsupportedOperationException("writable mappings are not modelled");
    }
    return delegate.map(mode, position, size);
  }

  @Override
  public FileLock lock(long position, long size, boolean shared) throws IOException {
    return delegate.lock(position, size, shared);
  }

  @Override
  public FileLock tryLock(long position, long size, boolean shared) throws IOException {
    return delegate.tryLock(position, size, shared);
  }

  @Override
  protected void implCloseChannel() throws IOException {
    delegate.close();
  }
}
