package dev.ledger.testing.fault;

import java.io.IOException;
import java.net.URI;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.Objects;

/** A path of a {@link FaultyFileSystem}: the delegate path, re-wrapped on every derivation. */
final class FaultyPath implements Path {
  private final FaultyFileSystem fs;
  private final Path delegate;

  FaultyPath(FaultyFileSystem fs, Path delegate) {
    this.fs = fs;
    this.delegate = delegate;
  }

  Path delegate() {
    return delegate;
  }

  private Path wrap(Path p) {
    return p == null ? null : new FaultyPath(fs, p);
  }

  static Path unwrap(Path p) {
    if (p instanceof FaultyPath faulty) {
      return faulty.delegate;
    }
    throw new IllegalArgumentException("not a path of a faulty file system: " + p);
  }

  @Override
  public FaultyFileSystem getFileSystem() {
    return fs;
  }

  @Override
  public boolean isAbsolute() {
    return delegate.isAbsolute();
  }

  @Override
  public Path getRoot() {
    return wrap(delegate.getRoot());
  }

  @Override
  public Path getFileName() {
    return wrap(delegate.getFileName());
  }

  @Override
  public Path getParent() {
    return wrap(delegate.getParent());
  }

  @Override
  public int getNameCount() {
    return delegate.getNameCount();
  }

  @Override
  public Path getName(int index) {
    return wrap(delegate.getName(index));
  }

  @Override
  public Path subpath(int beginIndex, int endIndex) {
    return wrap(delegate.subpath(beginIndex, endIndex));
  }

  @Override
  public boolean startsWith(Path other) {
    return other instanceof FaultyPath f && delegate.startsWith(f.delegate);
  }

  @Override
  public boolean endsWith(Path other) {
    return other instanceof FaultyPath f && delegate.endsWith(f.delegate);
  }

  @Override
  public Path normalize() {
    return wrap(delegate.normalize());
  }

  @Override
  public Path resolve(Path other) {
    return wrap(delegate.resolve(other instanceof FaultyPath f ? f.delegate
        : delegate.getFileSystem().getPath(other.toString())));
  }

  @Override
  public Path resolve(String other) {
    return wrap(delegate.resolve(other));
  }

  @Override
  public Path resolveSibling(String other) {
    return wrap(delegate.resolveSibling(other));
  }

  @Override
  public Path relativize(Path other) {
    return wrap(delegate.relativize(unwrap(other)));
  }

  @Override
  public URI toUri() {
    return delegate.toUri();
  }

  @Override
  public Path toAbsolutePath() {
    return wrap(delegate.toAbsolutePath());
  }

  @Override
  public Path toRealPath(LinkOption... options) throws IOException {
    return wrap(delegate.toRealPath(options));
  }

  @Override
  public WatchKey register(WatchService watcher, WatchEvent.Kind<?>[] events,
      WatchEvent.Modifier... modifiers) {
    throw new UnsupportedOperationException("watching a faulty file system");
  }

  @Override
  public int compareTo(Path other) {
    return delegate.compareTo(unwrap(other));
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof FaultyPath f && f.fs == fs && f.delegate.equals(delegate);
  }

  @Override
  public int hashCode() {
    return Objects.hash(System.identityHashCode(fs), delegate);
  }

  @Override
  public String toString() {
    return delegate.toString();
  }
}
