package dev.ledger.core.internal.io;

import dev.ledger.core.InvalidIdentifierException;
import java.util.Locale;
import java.util.Set;

/**
 * The identifiers that name directories and files (root ids, attempt ids): what is allowed,
 * and how an id becomes a directory name. A copied directory is a complete store, so every
 * name must be valid on Linux, macOS and Windows file systems alike.
 *
 * <p><b>Rules.</b> An id is refused with {@link InvalidIdentifierException} naming the value
 * and the rule, before any file is touched, unless it is:
 * <ol>
 *   <li>1 to {@value #MAX_LENGTH} characters from {@code A-Z a-z 0-9 . _ -}: no separator,
 *       no absolute path, no NUL, control character or whitespace, nothing a shell or
 *       {@code jq} would trip on, and no character that a file system would normalize;
 *   <li>not starting with {@code .} (hidden files, {@code .} and {@code ..}) or {@code -}
 *       (read as an option by command-line tools);
 *   <li>not ending with {@code .}: Windows drops a trailing dot, so {@code run.} and
 *       {@code run} would be one directory there;
 *   <li>without {@code ..} anywhere, so no id reads as a parent-directory step to a tool
 *       that splits or joins names carelessly;
 *   <li>not a Windows device name: {@code CON PRN AUX NUL COM0}-{@code COM9 LPT0}-{@code LPT9}
 *       in any case, alone or followed by any extension ({@code nul.txt},
 *       {@code Com1.tar.gz}): Windows opens the device instead of a file of that name. The
 *       part before the first {@code .} is compared, ignoring case. (The superscript-digit
 *       forms Windows also reserves are outside the alphabet.)
 * </ol>
 * Such ids are refused rather than encoded: the rules are the same for every store (the
 * in-memory one included, so a test catches an id the file store would refuse), the stored
 * name stays the id a person searches for, and no real id needs them.
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

  /** Windows device names, lower case; reserved with any extension. */
  private static final Set<String> DEVICE_NAMES = deviceNames();

  private Identifiers() {}

  /**
   * Returns {@code value} if it is a valid identifier.
   *
   * @param kind what the id is, for the message ("root id", "attempt id")
   * @param value the id to check
   * @return {@code value}
   * @throws NullPointerException if {@code value} is null (a programming error, not input)
   * @throws InvalidIdentifierException naming the value and the rule it broke
   */
  public static String check(String kind, String value) {
    if (value == null) {
      throw new NullPointerException(kind + " must not be null");
    }
    String broken = brokenRule(value);
    if (broken != null) {
      throw new InvalidIdentifierException(kind, value, broken);
    }
    return value;
  }

  /**
   * Whether {@code value} is a valid identifier (see the class comment).
   *
   * @param value the id to check, or null
   * @return true if {@link #check} would accept it
   */
  public static boolean isValid(String value) {
    return value != null && brokenRule(value) == null;
  }

  /** The first rule {@code value} breaks, as a phrase, or null if it breaks none. */
  private static String brokenRule(String value) {
    if (value.isEmpty()) {
      return "must not be empty";
    }
    if (value.length() > MAX_LENGTH) {
      return "has " + value.length() + " characters; at most " + MAX_LENGTH + " are allowed";
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (!allowed(c)) {
        return String.format("character U+%04X at index %d is outside [A-Za-z0-9._-]",
            (int) c, i);
      }
    }
    char first = value.charAt(0);
    if (first == '.' || first == '-') {
      return "must not start with '" + first + "'";
    }
    if (value.endsWith(".")) {
      return "must not end with '.' (Windows drops a trailing dot from file names)";
    }
    int dots = value.indexOf("..");
    if (dots >= 0) {
      return "must not contain '..' (found at index " + dots + ")";
    }
    int dot = value.indexOf('.');
    String stem = (dot < 0 ? value : value.substring(0, dot)).toLowerCase(Locale.ROOT);
    if (DEVICE_NAMES.contains(stem)) {
      return "'" + value.substring(0, stem.length()) + "' is a Windows device name (CON, PRN,"
          + " AUX, NUL, COM0-9, LPT0-9 are reserved in any case and with any extension)";
    }
    return null;
  }

  /**
   * The directory name of a valid id: upper-case letters become {@code !} + lower case.
   *
   * @param kind what the id is, for the message
   * @param id the id
   * @return the directory name
   * @throws NullPointerException if {@code id} is null
   * @throws InvalidIdentifierException if {@code id} is not a valid identifier
   */
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
   * produces (a stray file, a temp directory, a name made by hand that breaks a rule):
   * callers listing directories skip such names.
   *
   * @param kind what the id is
   * @param name a directory name
   * @return the id, or null
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
    return isValid(id) ? id : null;
  }

  private static boolean allowed(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || c == '.' || c == '_' || c == '-';
  }

  private static Set<String> deviceNames() {
    java.util.HashSet<String> names = new java.util.HashSet<>(Set.of("con", "prn", "aux", "nul"));
    for (int digit = 0; digit <= 9; digit++) {
      names.add("com" + digit);
      names.add("lpt" + digit);
    }
    return Set.copyOf(names);
  }
}
