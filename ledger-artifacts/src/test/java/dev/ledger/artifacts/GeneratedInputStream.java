package dev.ledger.artifacts;

import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A stream of {@code size} pseudo-random bytes from a seed, generated as it is read (never
 * held in memory), that hashes what it hands out so the expected content id is known at the
 * end without a second pass.
 */
public final class GeneratedInputStream extends InputStream {
  private final long size;
  private final MessageDigest digest;
  private long state;
  private long position;

  /** A stream of {@code size} bytes derived from {@code seed}. */
  public GeneratedInputStream(long size, long seed) {
    this.size = size;
    this.state = seed == 0 ? 0x9E3779B97F4A7C15L : seed;
    try {
      this.digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private long next() {
    state ^= state << 13;
    state ^= state >>> 7;
    state ^= state << 17;
    return state;
  }

  @Override
  public int read() {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) {
    if (position >= size) {
      return -1;
    }
    int n = (int) Math.min(length, size - position);
    int i = 0;
    while (i < n) {
      long word = next();
      for (int k = 0; k < 8 && i < n; k++, i++) {
        buffer[offset + i] = (byte) (word >>> (8 * k));
      }
    }
    digest.update(buffer, offset, n);
    position += n;
    return n;
  }

  /** The hex SHA-256 of the bytes read so far (call once, after the end). */
  public String sha256Hex() {
    return HexFormat.of().formatHex(digest.digest());
  }
}
