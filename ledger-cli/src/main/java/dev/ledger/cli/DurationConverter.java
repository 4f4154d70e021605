package dev.ledger.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads a duration: a whole number with a unit, {@code 90s}, {@code 15m}, {@code 12h},
 * {@code 7d}, {@code 0}, or ISO-8601 as {@link Duration#parse} reads it ({@code PT1H30M}).
 */
final class DurationConverter implements ITypeConverter<Duration> {
  private static final Pattern SIMPLE = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)");

  @Override
  public Duration convert(String value) {
    if (value.equals("0")) {
      return Duration.ZERO;
    }
    Matcher simple = SIMPLE.matcher(value);
    if (simple.matches()) {
      long amount = Long.parseLong(simple.group(1));
      return switch (simple.group(2)) {
        case "ms" -> Duration.ofMillis(amount);
        case "s" -> Duration.ofSeconds(amount);
        case "m" -> Duration.ofMinutes(amount);
        case "h" -> Duration.ofHours(amount);
        default -> Duration.ofDays(amount);
      };
    }
    try {
      Duration parsed = Duration.parse(value);
      if (parsed.isNegative()) {
        throw new TypeConversionException("a duration must not be negative: '" + value + "'");
      }
      return parsed;
    } catch (DateTimeParseException e) {
      throw new TypeConversionException("'" + value + "' is not a duration (examples: 90s, "
          + "15m, 12h, 7d, PT1H30M)");
    }
  }
}
