package dev.ledger.artifacts;

import com.google.common.base.Preconditions;

/**
 * The name of a blob: the SHA-256 of its bytes. Two blobs with the same id have the same
 * bytes; a blob's id never changes.
 *
 * <p>Written as {@code sha256:<64 lower-case hex digits>} ({@link #toString}, {@link #parse});
 * {@link #hex()} is the bare digest.
 *
 * @param hex the digest as 64 lower-case hexadecimal digits
 */
public record ContentId(String hex) implements Comparable<ContentId> {
  /** The prefix of the written form. */
  public static final String PREFIX = "sha256:";

  /**
   * Validates the digest.
   *
   * @param hex the digest as 64 lower-case hexadecimal digits
   * @throws IllegalArgumentException unless {@code hex} is 64 lower-case hex digits
   */
  public ContentId {
    Preconditions.checkArgument(isHex64(hex),
        "content id must be 64 lower-case hex digits: %s", hex);
  }

  /**
   * Parses the written form {@code sha256:<hex>}.
   *
   * @param text the written form
   * @return the content id
   * @throws IllegalArgumentException if {@code text} is not that form
   */
  public static ContentId parse(String text) {
    Preconditions.checkArgument(text != null && text.startsWith(PREFIX),
        "content id must start with '%s': %s", PREFIX, text);
    return new ContentId(text.substring(PREFIX.length()));
  }

  /**
   * Whether a string is a bare digest.
   *
   * @param value the string, or null
   * @return true if it is exactly 64 lower-case hexadecimal digits
   */
  public static boolean isHex64(String value) {
    if (value == null || value.length() != 64) {
      return false;
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }

  /**
   * The written form.
   *
   * @return {@code sha256:<hex>}
   */
  @Override
  public String toString() {
    return PREFIX + hex;
  }

  /**
   * Orders by digest.
   *
   * @param other the id to compare with
   * @return the order of the hex digests
   */
  @Override
  public int compareTo(ContentId other) {
    return hex.compareTo(other.hex);
  }
}
