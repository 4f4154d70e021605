package dev.ledger.core.internal.json;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * Typed reads of required fields from the JSON of the library's own file formats. Each
 * throws {@link IllegalArgumentException} naming the field; callers turn that into the
 * corruption error of the file they read.
 */
public final class JsonFields {
  private JsonFields() {}

  /** The field as a long; it must be an integral number that fits. */
  public static long integer(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null || !value.isIntegralNumber() || !value.canConvertToLong()) {
      throw new IllegalArgumentException("field '" + field + "' must be an integer");
    }
    return value.longValue();
  }

  /** The field as a string; it must be a JSON string. */
  public static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null || !value.isTextual()) {
      throw new IllegalArgumentException("field '" + field + "' must be a string");
    }
    return value.textValue();
  }

  /** The field as a string, or null when absent; present, it must be a JSON string. */
  public static String optionalText(JsonNode node, String field) {
    return node.get(field) == null ? null : text(node, field);
  }

  /**
   * {@link Instant#toString()} of {@code instant}, the form the journal records: the text of
   * its whole second is formatted once per second and kept (the last one, shared by every
   * thread), and the fraction is appended as {@code Instant.toString} does (none, or 3, 6 or 9
   * digits). Every commit record carries its commit time, and the general formatter cost more
   * than the rest of the record's header.
   */
  public static String instantText(Instant instant) {
    long second = instant.getEpochSecond();
    SecondText last = lastSecond;
    if (last == null || last.second() != second) {
      String whole = Instant.ofEpochSecond(second).toString();
      last = new SecondText(second, whole.substring(0, whole.length() - 1));
      lastSecond = last;
    }
    int nano = instant.getNano();
    if (nano == 0) {
      return last.text() + "Z";
    }
    // As Instant.toString: the fewest groups of three digits that hold the fraction.
    String fraction;
    if (nano % 1_000_000 == 0) {
      fraction = Integer.toString(nano / 1_000_000 + 1_000).substring(1);
    } else if (nano % 1_000 == 0) {
      fraction = Integer.toString(nano / 1_000 + 1_000_000).substring(1);
    } else {
      fraction = Integer.toString(nano + 1_000_000_000).substring(1);
    }
    return last.text() + "." + fraction + "Z";
  }

  /** The text of a whole second, without its {@code Z}. */
  private record SecondText(long second, String text) {}

  private static volatile SecondText lastSecond;

  /** The field as an instant; it must be an ISO-8601 string. */
  public static Instant instant(JsonNode node, String field) {
    return instant(text(node, field), field);
  }

  /**
   * Parses {@code text}, the value of {@code field}, as an ISO-8601 instant.
   *
   * @throws IllegalArgumentException naming the field if it is not one
   */
  public static Instant instant(String text, String field) {
    Instant fast = parseUtcInstant(text);
    if (fast != null) {
      return fast;
    }
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("field '" + field + "' is not an ISO-8601 instant", e);
    }
  }

  /**
   * The instant of {@code text} if it has exactly the shape {@link Instant#toString()} writes
   * for years 0000 to 9999 ({@code 2024-01-31T12:00:00Z}, with 1 to 9 fraction digits or
   * none), with every field in its ordinary range; otherwise null, and the caller asks
   * {@link Instant#parse}, which then decides (leap seconds, other years, errors). Every
   * record carries one instant per event: {@code Instant.parse} through the general
   * formatter was a third of {@code verify()}'s time.
   */
  static Instant parseUtcInstant(String text) {
    int length = text.length();
    if (length < 20 || length > 30 || length == 21 || text.charAt(length - 1) != 'Z'
        || text.charAt(4) != '-' || text.charAt(7) != '-' || text.charAt(10) != 'T'
        || text.charAt(13) != ':' || text.charAt(16) != ':') {
      return null;
    }
    int year = digits(text, 0, 4);
    int month = digits(text, 5, 2);
    int day = digits(text, 8, 2);
    int hour = digits(text, 11, 2);
    int minute = digits(text, 14, 2);
    int second = digits(text, 17, 2);
    if (year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23
        || minute < 0 || minute > 59 || second < 0 || second > 59) {
      return null;
    }
    int nanos = 0;
    if (length > 20) {
      if (text.charAt(19) != '.') {
        return null;
      }
      int fraction = length - 21;
      int value = digits(text, 20, fraction);
      if (value < 0) {
        return null;
      }
      nanos = value;
      for (int i = fraction; i < 9; i++) {
        nanos *= 10;
      }
    }
    if (day > java.time.YearMonth.of(year, month).lengthOfMonth()) {
      return null;
    }
    long epochDay = java.time.LocalDate.of(year, month, day).toEpochDay();
    return Instant.ofEpochSecond(epochDay * 86_400 + hour * 3600L + minute * 60L + second,
        nanos);
  }

  /** The decimal value of {@code count} ASCII digits at {@code from}, or -1. */
  private static int digits(String text, int from, int count) {
    int value = 0;
    for (int i = from; i < from + count; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }
}
