package dev.ledger.core;

/**
 * An identifier (root id, attempt id) is outside the safe alphabet or length, so it could
 * name a path outside the store. Refused before any file is touched.
 */
public class InvalidIdentifierException extends LedgerException {
  private static final long serialVersionUID = 1L;
  private final String value;

  /** Creates the exception for the refused {@code value} and the rule it broke. */
  public InvalidIdentifierException(String kind, String value, String reason) {
    super("Invalid " + kind + " " + quote(value) + ": " + reason);
    this.value = value;
  }

  /** The refused value (possibly null). */
  public String value() {
    return value;
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
