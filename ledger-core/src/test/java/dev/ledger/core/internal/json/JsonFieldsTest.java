package dev.ledger.core.internal.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The fast instant reader agrees with {@link Instant#parse} everywhere it answers. */
@ExtendWith(SeedExtension.class)
class JsonFieldsTest {
  @Test
  void instantsAsInstantToStringWritesThemReadBackEqual(TestSeed seed) {
    Random random = seed.random();
    long min = Instant.parse("0000-01-01T00:00:00Z").getEpochSecond();
    long max = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();
    for (int i = 0; i < 100_000; i++) {
      long second = min + (long) (random.nextDouble() * (max - min));
      int nanos = switch (i % 4) {
        case 0 -> 0;
        case 1 -> random.nextInt(1000) * 1_000_000;
        case 2 -> random.nextInt(1_000_000) * 1000;
        default -> random.nextInt(1_000_000_000);
      };
      Instant instant = Instant.ofEpochSecond(second, nanos);
      String text = instant.toString();
      assertThat(JsonFields.parseUtcInstant(text)).as("%s (%s)", text, seed).isEqualTo(instant);
      assertThat(read(text)).isEqualTo(instant);
    }
  }

  @Test
  void instantTextIsInstantToString(TestSeed seed) {
    Random random = seed.random();
    long min = Instant.MIN.getEpochSecond();
    long max = Instant.MAX.getEpochSecond();
    for (int i = 0; i < 100_000; i++) {
      // Whole range, around the epoch and the years 0 and 10000, and runs within one second.
      long second = switch (i % 5) {
        case 0 -> min + (long) (random.nextDouble() * (max - min));
        case 1 -> random.nextInt(2_000_000) - 1_000_000;
        case 2 -> -62_167_219_200L + random.nextInt(2_000_000) - 1_000_000;
        case 3 -> 253_402_300_800L + random.nextInt(2_000_000) - 1_000_000;
        default -> 1_764_586_000L + i / 50;
      };
      int nanos = switch (random.nextInt(4)) {
        case 0 -> 0;
        case 1 -> random.nextInt(1000) * 1_000_000;
        case 2 -> random.nextInt(1_000_000) * 1000;
        default -> random.nextInt(1_000_000_000);
      };
      Instant instant = Instant.ofEpochSecond(second, nanos);
      assertThat(JsonFields.instantText(instant)).as("%s (%s)", instant, seed)
          .isEqualTo(instant.toString());
    }
  }

  @Test
  void shapesTheFastPathDoesNotTakeGoToInstantParse() {
    for (String text : List.of("2024-02-29T12:00:00.5Z", "2024-12-31T23:59:59.12345678Z",
        "2000-01-01T00:00:00.000000001Z")) {
      assertThat(JsonFields.parseUtcInstant(text)).isEqualTo(Instant.parse(text));
    }
    // Leap second, five-digit year, an offset, 24:00, an empty fraction: Instant.parse
    // decides (and accepts them).
    for (String text : List.of("2016-12-31T23:59:60Z", "+10000-01-01T00:00:00Z",
        "2024-01-01T00:00:00+01:00", "2024-01-01T24:00:00Z", "2024-01-01T00:00:00.Z")) {
      assertThat(JsonFields.parseUtcInstant(text)).isNull();
      assertThat(read(text)).isEqualTo(Instant.parse(text));
    }
    for (String text : List.of("2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z",
        "2024-01-01T00:60:00Z",
        "2024-01-01T00:00:00.1234567890Z", "2024-01-01 00:00:00Z", "2024-01-01T00:00:00",
        "2024-01-0aT00:00:00Z", "")) {
      assertThat(JsonFields.parseUtcInstant(text)).as(text).isNull();
      assertThatThrownBy(() -> read(text)).as(text).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("field 'at' is not an ISO-8601 instant");
    }
  }

  private static Instant read(String text) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("at", text);
    return JsonFields.instant(node, "at");
  }
}
