package dev.ledger.artifacts.fs;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 with a bounded buffer. */
final class Sha256 {
  /** Bytes read per step when streaming: large enough for throughput, small for the heap. */
  static final int BUFFER = 64 * 1024;

  private Sha256() {}

  static MessageDigest newDigest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform provides SHA-256", e);
    }
  }

  /** Hex digest of a file's bytes, streaming; {@code counted[0]} receives its length. */
  static String ofFile(Path file, long[] counted) throws IOException {
    MessageDigest digest = newDigest();
    byte[] buffer = new byte[BUFFER];
    long total = 0;
    try (InputStream in = Files.newInputStream(file)) {
      for (int n; (n = in.read(buffer)) >= 0; ) {
        digest.update(buffer, 0, n);
        total += n;
      }
    }
    counted[0] = total;
    return HexFormat.of().formatHex(digest.digest());
  }
}
