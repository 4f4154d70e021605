package dev.ledger.core.internal.io;

import dev.ledger.core.InvalidIdentifierException;

/**
 * The identifiers that name directories and files (root ids, attempt ids): what is allowed,
 * and how an id becomes a directory name.
 *
 * <p><b>Alphabet.</b> 1 to 128 characters from {@code A-Z a-z 0-9 . _ -}, not starting with
 * {@code .} or {@code -}. So no separator, no {@code ..}, no absolute path, no NUL or control
 * character, no whitespace and nothing a shell or {@code jq} would trip on. Ids are checked
 * before any file is touched; a refused id throws {@link InvalidIdentifierException}.
 *
 * <p><b>Case.</b> Ids are case-sensitive, but a case-insensitive file system (macOS, Windows)
 * would put {@code Run} and {@code run} in one directory. Directory names therefore encode
 * each upper-case letter as {@code !} followed by its lower-case form ({@code Run-1} is
 * stored as {@code !run-1}), as Go's module cache does. {@code !} is outside the alphabet, so
 * the encoding is one-to-one and every directory name is lower case.
 */
public final class Identifiers {
  /** Longest identifier accepted. */
  public static final int MAX_LENGTH = 128;

  private Identifiers() {}

  /**
   * Returns {@code value} if it is a valid identifier.
   *
   * @param kind what the id is, for the message ("root id", "attempt id")
   * @throws InvalidIdentifierException naming the value and the rule it broke
   */
  public static String check(String kind, String value) {
    if (value == null) {
      throw new InvalidIdentifierException(kind, null, "must not be null");
    }
    if (value.isEmpty()) {
      throw new InvalidIdentifierException(kind, value, "must not be empty");
    }
    if (value.length() > MAX_LENGTH) {
      throw new InvalidIdentifierException(kind, value,
          "has " + value.length() + " characters; at most " + MAX_LENGTH + " are allowed");
    }
    char first = value.charAt(0);
    if (first == '.' || first == '-') {
      throw new InvalidIdentifierException(kind, value, "must not start with '" + first + "'");
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (!allowed(c)) {
        throw new InvalidIdentifierException(kind, value, String.format(
            "character U+%04X at index %d is outside [A-Za-z0-9._-]", (int) c, i));
      }
    }
    return value;
  }

  /** The directory name of a valid id: upper-case letters become {@code !} + lower case. */
  public static String toDirectoryName(String kind, String id) {
    check(kind, id);
    StringBuilder out = new StringBuilder(id.length() + 8);
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      if (c >= 'A' && c <= 'Z') {
        out.append('!').append((char) (c + ('a' - 'A')));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /**
   * The id a directory name encodes, or {@code null} if the name is not one this class
   * produces (a stray file, a temp directory): callers listing directories skip such names.
   */
  public static String fromDirectoryName(String kind, String name) {
    StringBuilder out = new StringBuilder(name.length());
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '!') {
        if (i + 1 >= name.length()) {
          return null;
        }
        char next = name.charAt(++i);
        if (next < 'a' || next > 'z') {
          return null;
        }
        out.append((char) (next - ('a' - 'A')));
      } else if (c >= 'A' && c <= 'Z') {
        return null;
      } else {
        out.append(c);
      }
    }
    String id = out.toString();
    try {
      check(kind, id);
    } catch (InvalidIdentifierException e) {
      return null;
    }
    return id;
  }

  private static boolean allowed(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || c == '.' || c == '_' || c == '-';
  }
}
