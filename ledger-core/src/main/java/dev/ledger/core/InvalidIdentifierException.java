package dev.ledger.core;

/**
 * An identifier (root id, attempt id, snapshot id) breaks a rule of identifiers: outside the
 * safe alphabet or length, or a name some file system would treat specially (a Windows device
 * name, a trailing dot, {@code ..}). Such an id could name a path outside the store or one
 * that a copy of the store on another system could not hold. Refused before any file is
 * touched. The message names the kind of id, the value (control characters escaped) and the
 * rule it broke.
 */
public class InvalidIdentifierException extends LedgerException {
  private static final long serialVersionUID = 1L;
  /** Serialized with the exception; what {@link #kind()} returns. */
  private final String kind;
  /** Serialized with the exception; what {@link #value()} returns. */
  private final String value;
  /** Serialized with the exception; what {@link #reason()} returns. */
  private final String reason;

  /**
   * Creates the exception for the refused {@code value} and the rule it broke.
   *
   * @param kind what the id is ({@code "root id"})
   * @param value the refused value
   * @param reason the rule it broke, as a phrase ({@code "must not end with '.'"})
   */
  public InvalidIdentifierException(String kind, String value, String reason) {
    super("Invalid " + kind + " " + quote(value) + ": " + reason);
    this.kind = kind;
    this.value = value;
    this.reason = reason;
  }

  /**
   * What the refused id is.
   *
   * @return its kind, as in {@code "root id"}
   */
  public String kind() {
    return kind;
  }

  /**
   * The refused value.
   *
   * @return the value as given
   */
  public String value() {
    return value;
  }

  /**
   * The rule the value broke.
   *
   * @return the rule, as a phrase
   */
  public String reason() {
    return reason;
  }

  private static String quote(String value) {
    if (value == null) {
      return "null";
    }
    StringBuilder out = new StringBuilder("'");
    int shown = Math.min(value.length(), 80);
    for (int i = 0; i < shown; i++) {
      char c = value.charAt(i);
      if (c < 0x20 || c == 0x7f || (c >= 0x80 && Character.isISOControl(c))) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    if (value.length() > shown) {
      out.append("...(").append(value.length()).append(" chars)");
    }
    return out.append('\'').toString();
  }
}
