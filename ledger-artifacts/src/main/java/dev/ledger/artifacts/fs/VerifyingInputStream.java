package dev.ledger.artifacts.fs;

import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.CorruptBlobException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * Hashes every byte it returns and, at the end of the stream, throws
 * {@link CorruptBlobException} instead of returning -1 if the digest is not the expected id.
 * Skipping reads (and hashes) the skipped bytes; mark and reset are not supported.
 */
final class VerifyingInputStream extends FilterInputStream {
  private final MessageDigest digest = Sha256.newDigest();
  private final ContentId expected;
  private final Path path;
  private boolean verified;

  VerifyingInputStream(InputStream in, ContentId expected, Path path) {
    super(in);
    this.expected = expected;
    this.path = path;
  }

  @Override
  public int read() throws IOException {
    int b = in.read();
    if (b < 0) {
      atEnd();
    } else {
      digest.update((byte) b);
    }
    return b;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    int n = in.read(buffer, offset, length);
    if (n < 0) {
      atEnd();
    } else {
      digest.update(buffer, offset, n);
    }
    return n;
  }

  @Override
  public long skip(long n) throws IOException {
    byte[] scratch = new byte[(int) Math.min(8192, Math.max(n, 1))];
    long skipped = 0;
    while (skipped < n) {
      int r = read(scratch, 0, (int) Math.min(scratch.length, n - skipped));
      if (r < 0) {
        break;
      }
      skipped += r;
    }
    return skipped;
  }

  @Override
  public boolean markSupported() {
    return false;
  }

  @Override
  public synchronized void mark(int readlimit) {
    // not supported: a reset would hash bytes twice
  }

  @Override
  public synchronized void reset() throws IOException {
    throw new IOException("mark/reset not supported");
  }

  private void atEnd() {
    if (verified) {
      return;
    }
    String actual = HexFormat.of().formatHex(digest.digest());
    if (!actual.equals(expected.hex())) {
      throw new CorruptBlobException(path, expected, actual);
    }
    verified = true;
  }
}
