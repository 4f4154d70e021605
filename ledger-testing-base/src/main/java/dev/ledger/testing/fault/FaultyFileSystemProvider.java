package dev.ledger.testing.fault;

import java.io.IOException;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessMode;
import java.nio.file.CopyOption;
import java.nio.file.DirectoryStream;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileAttributeView;
import java.nio.file.spi.FileSystemProvider;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/** The provider of one {@link FaultyFileSystem}: unwraps paths and reports every mutation. */
final class FaultyFileSystemProvider extends FileSystemProvider {
  private final FileSystemProvider delegate;
  private FaultyFileSystem fs;

  FaultyFileSystemProvider(FileSystemProvider delegate) {
    this.delegate = delegate;
  }

  void attach(FaultyFileSystem fs) {
    this.fs = fs;
  }

  private static Path real(Path p) {
    return FaultyPath.unwrap(p);
  }

  @Override
  public String getScheme() {
    return "faulty";
  }

  @Override
  public FileSystem newFileSystem(URI uri, Map<String, ?> env) {
    throw new UnsupportedOperationException();
  }

  @Override
  public FileSystem getFileSystem(URI uri) {
    return fs;
  }

  @Override
  public Path getPath(URI uri) {
    return new FaultyPath(fs, delegate.getPath(uri));
  }

  @Override
  public FileChannel newFileChannel(Path path, Set<? extends OpenOption> options,
      FileAttribute<?>... attrs) throws IOException {
    Path target = real(path);
    boolean existed = Files.exists(target);
    boolean creates = !existed && (options.contains(StandardOpenOption.CREATE)
        || options.contains(StandardOpenOption.CREATE_NEW));
    boolean writes = options.contains(StandardOpenOption.WRITE)
        || options.contains(StandardOpenOption.APPEND);
    if (creates) {
      fs.check(Op.CREATE, target, 0);
    }
    if (existed && writes && options.contains(StandardOpenOption.TRUNCATE_EXISTING)) {
      fs.check(Op.TRUNCATE, target, 0);
      fs.beforeModify(target);
    }
    FileChannel channel = delegate.newFileChannel(target, options, attrs);
    if (creates) {
      fs.created(target, false);
    }
    return new FaultyFileChannel(fs, channel, target, Files.isDirectory(target));
  }

  @Override
  public SeekableByteChannel newByteChannel(Path path, Set<? extends OpenOption> options,
      FileAttribute<?>... attrs) throws IOException {
    return newFileChannel(path, options, attrs);
  }

  @Override
  public DirectoryStream<Path> newDirectoryStream(Path dir,
      DirectoryStream.Filter<? super Path> filter) throws IOException {
    fs.check(Op.LIST, real(dir), 0);
    DirectoryStream<Path> inner = delegate.newDirectoryStream(real(dir),
        p -> filter.accept(new FaultyPath(fs, p)));
    return new DirectoryStream<>() {
      @Override
      public Iterator<Path> iterator() {
        Iterator<Path> it = inner.iterator();
        return new Iterator<>() {
          @Override
          public boolean hasNext() {
            return it.hasNext();
          }

          @Override
          public Path next() {
            return new FaultyPath(fs, it.next());
          }
        };
      }

      @Override
      public void close() throws IOException {
        inner.close();
      }
    };
  }

  @Override
  public void createDirectory(Path dir, FileAttribute<?>... attrs) throws IOException {
    fs.check(Op.CREATE, real(dir), 0);
    delegate.createDirectory(real(dir), attrs);
    fs.created(real(dir), true);
  }

  @Override
  public void createLink(Path link, Path existing) throws IOException {
    fs.check(Op.LINK, real(link), 0);
    delegate.createLink(real(link), real(existing));
    fs.linked(real(link), real(existing));
  }

  @Override
  public void delete(Path path) throws IOException {
    fs.check(Op.DELETE, real(path), 0);
    fs.deleting(real(path));
    delegate.delete(real(path));
  }

  @Override
  public void copy(Path source, Path target, CopyOption... options) throws IOException {
    throw new UnsupportedOperationException("copy is not modelled");
  }

  @Override
  public void move(Path source, Path target, CopyOption... options) throws IOException {
    fs.check(Op.MOVE, real(target), 0);
    fs.moving(real(source), real(target));
    delegate.move(real(source), real(target), options);
  }

  @Override
  public boolean isSameFile(Path path, Path path2) throws IOException {
    return delegate.isSameFile(real(path), real(path2));
  }

  @Override
  public boolean isHidden(Path path) throws IOException {
    return delegate.isHidden(real(path));
  }

  @Override
  public FileStore getFileStore(Path path) throws IOException {
    return delegate.getFileStore(real(path));
  }

  @Override
  public void checkAccess(Path path, AccessMode... modes) throws IOException {
    delegate.checkAccess(real(path), modes);
  }

  @Override
  public <V extends FileAttributeView> V getFileAttributeView(Path path, Class<V> type,
      LinkOption... options) {
    return delegate.getFileAttributeView(real(path), type, options);
  }

  @Override
  public <A extends BasicFileAttributes> A readAttributes(Path path, Class<A> type,
      LinkOption... options) throws IOException {
    return delegate.readAttributes(real(path), type, options);
  }

  @Override
  public Map<String, Object> readAttributes(Path path, String attributes, LinkOption... options)
      throws IOException {
    return delegate.readAttributes(real(path), attributes, options);
  }

  @Override
  public void setAttribute(Path path, String attribute, Object value, LinkOption... options)
      throws IOException {
    delegate.setAttribute(real(path), attribute, value, options);
  }
}
