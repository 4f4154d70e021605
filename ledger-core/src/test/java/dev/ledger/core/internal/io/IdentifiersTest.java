package dev.ledger.core.internal.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.core.InvalidIdentifierException;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.util.HashSet;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(SeedExtension.class)
class IdentifiersTest {
  private static final String ALPHABET =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-";

  @Test
  void directoryNamesRoundTripAndNeverCollideIgnoringCase(TestSeed seed) {
    Random random = seed.random();
    Set<String> ids = new HashSet<>();
    Set<String> foldedNames = new HashSet<>();
    for (int i = 0; i < 20000; i++) {
      StringBuilder id = new StringBuilder().append((char) ('a' + random.nextInt(26)));
      for (int n = random.nextInt(6); n > 0; n--) {
        id.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
      }
      String value = id.toString();
      String name = Identifiers.toDirectoryName("root id", value);
      assertThat(name).as("%s", seed).isEqualTo(name.toLowerCase(Locale.ROOT));
      assertThat(Identifiers.fromDirectoryName("root id", name)).as("%s", seed)
          .isEqualTo(value);
      if (ids.add(value)) {
        assertThat(foldedNames.add(name.toLowerCase(Locale.ROOT)))
            .as("%s: %s collides", seed, value).isTrue();
      }
    }
  }

  @Test
  void strayDirectoryNamesDecodeToNothing() {
    for (String name : new String[] {"UPPER", "a!", "!1", "!!a", ".tmp", "", "a b", "..", "x!Y"}) {
      assertThat(Identifiers.fromDirectoryName("root id", name)).as(name).isNull();
    }
  }

  @Test
  void refusalsNameTheRuleAndEscapeControlCharacters() {
    assertThatThrownBy(() -> Identifiers.check("root id", "a\u0000b"))
        .isInstanceOf(InvalidIdentifierException.class)
        .hasMessageContaining("\\u0000").hasMessageContaining("U+0000 at index 1");
    assertThatThrownBy(() -> Identifiers.check("root id", "x".repeat(129)))
        .hasMessageContaining("129 characters");
    assertThat(Identifiers.check("root id", "x".repeat(128))).hasSize(128);
  }
}
