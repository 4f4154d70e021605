package dev.ledger.testing;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Expected digests for the suites, computed independently of the code under test. */
final class Sha256 {
  private Sha256() {}

  /** Lower-case hex SHA-256 of the UTF-8 bytes of {@code text}. */
  static String hex(String text) {
    return hex(text.getBytes(StandardCharsets.UTF_8));
  }

  /** Lower-case hex SHA-256 of {@code bytes}. */
  static String hex(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError("every Java platform has SHA-256", e);
    }
  }
}
