package dev.ledger.core.internal.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ledger.core.InvalidIdentifierException;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.regex.Pattern;
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
      if (!Identifiers.isValid(value)) {
        continue; // a device name, a trailing dot or '..': the hostile-id test covers those
      }
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
    for (String name : new String[] {"UPPER", "a!", "!1", "!!a", ".tmp", "", "a b", "..", "x!Y",
        "con", "nul.txt", "run.", "a..b"}) {
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

  @Test
  void nullIsAProgrammingErrorNotAnInvalidIdentifier() {
    assertThatThrownBy(() -> Identifiers.check("attempt id", null))
        .isExactlyInstanceOf(NullPointerException.class).hasMessage("attempt id must not be null");
    assertThat(Identifiers.isValid(null)).isFalse();
  }

  @Test
  void namesWindowsOrMacCouldNotHoldAreRefusedNamingTheRule() {
    String[][] cases = {
        {"CON", "Windows device name"}, {"con", "Windows device name"},
        {"Con", "Windows device name"}, {"nul.txt", "Windows device name"},
        {"Com1.tar.gz", "Windows device name"}, {"LPT9", "Windows device name"},
        {"com0", "Windows device name"}, {"lpt0.x", "Windows device name"},
        {"PRN.json", "Windows device name"}, {"aUx", "Windows device name"},
        {"run.", "must not end with '.'"}, {"a.b.", "must not end with '.'"},
        {"a..b", "must not contain '..'"}, {"x..", "must not"},
        {"..", "must not start with '.'"}, {".hidden", "must not start with '.'"},
        {"-rf", "must not start with '-'"}, {"a/b", "outside [A-Za-z0-9._-]"},
        {"a\\b", "outside"}, {"a:b", "outside"}, {"caf\u00e9", "outside"},
        {"COM\u00b9", "outside"}, {"", "must not be empty"},
    };
    for (String[] c : cases) {
      Throwable thrown = catchThrowable(() -> Identifiers.check("root id", c[0]));
      assertThat(thrown).as(c[0]).isInstanceOf(InvalidIdentifierException.class)
          .hasMessageContaining(c[1]).hasMessageContaining("'" + c[0] + "'");
      assertThat(((InvalidIdentifierException) thrown).value()).isEqualTo(c[0]);
      assertThat(((InvalidIdentifierException) thrown).kind()).isEqualTo("root id");
    }
    for (String ok : new String[] {"console", "nul_", "com10", "lpt", "a.con", "auxiliary.txt",
        "x.y.z", "run-1", "CONx", "com1_2", "_", "a-", "a.b_"}) {
      assertThat(Identifiers.check("root id", ok)).as(ok).isEqualTo(ok);
    }
  }

  /**
   * Property: over a seeded set of generated ids biased towards the dangerous shapes (device
   * names in random case with random extensions, dots, dashes, characters outside the
   * alphabet), {@link Identifiers#check} accepts exactly what an independent statement of
   * the rules accepts, and every accepted id's directory name is one that Linux, macOS and
   * Windows can all hold.
   */
  @Test
  void generatedIdsAreAcceptedExactlyWhenPortable(TestSeed seed) {
    Random random = seed.random();
    int accepted = 0;
    int refused = 0;
    for (int i = 0; i < 50_000; i++) {
      String id = hostileId(random);
      boolean expected = portableByTheRules(id);
      Throwable thrown = catchThrowable(() -> Identifiers.check("root id", id));
      if (expected) {
        assertThat(thrown).as("%s: %s should be accepted", seed, show(id)).isNull();
        String name = Identifiers.toDirectoryName("root id", id);
        assertThat(portableFileName(name)).as("%s: directory name of %s", seed, show(id))
            .isTrue();
        assertThat(Identifiers.fromDirectoryName("root id", name)).as("%s", seed).isEqualTo(id);
        accepted++;
      } else {
        assertThat(thrown).as("%s: %s should be refused", seed, show(id))
            .isInstanceOf(InvalidIdentifierException.class);
        assertThat(((InvalidIdentifierException) thrown).value()).isEqualTo(id);
        assertThat(((InvalidIdentifierException) thrown).reason()).isNotBlank();
        refused++;
      }
    }
    // The generator must exercise both sides, or the property proves nothing.
    assertThat(accepted).as("%s", seed).isGreaterThan(5_000);
    assertThat(refused).as("%s", seed).isGreaterThan(5_000);
  }

  private static final String[] DEVICES = {"con", "prn", "aux", "nul", "com", "lpt"};
  private static final String[] EXTENSIONS = {"", ".txt", ".tar.gz", ".", "..", ".json", ".1",
      "_x", "x", "-1", ".c.d"};
  private static final String OUTSIDE = "/\\: \t\n\u0000\u00e9\u00b9\u00b2\u202e*?\"<>|!$~";

  /** An id shaped to hit the rules' edges more often than uniform strings would. */
  static String hostileId(Random random) {
    StringBuilder id = new StringBuilder();
    switch (random.nextInt(6)) {
      case 0, 1 -> {
        String device = DEVICES[random.nextInt(DEVICES.length)];
        if (device.length() == 3 && (device.equals("com") || device.equals("lpt"))) {
          device += random.nextInt(12) < 10 ? String.valueOf(random.nextInt(10)) : "";
        }
        id.append(randomCase(device, random))
            .append(EXTENSIONS[random.nextInt(EXTENSIONS.length)]);
      }
      case 2 -> {
        for (int n = 1 + random.nextInt(8); n > 0; n--) {
          id.append(".-_aZ9".charAt(random.nextInt(6)));
        }
      }
      case 3 -> {
        for (int n = random.nextInt(10); n > 0; n--) {
          id.append(random.nextInt(5) == 0 ? OUTSIDE.charAt(random.nextInt(OUTSIDE.length()))
              : ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
      }
      default -> {
        for (int n = 1 + random.nextInt(random.nextInt(20) == 0 ? 140 : 12); n > 0; n--) {
          id.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
      }
    }
    return id.toString();
  }

  private static String randomCase(String s, Random random) {
    StringBuilder out = new StringBuilder();
    for (char c : s.toCharArray()) {
      out.append(random.nextBoolean() ? Character.toUpperCase(c) : c);
    }
    return out.toString();
  }

  private static final Pattern ALPHABET_RULE = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._-]{0,127}");
  private static final Pattern DEVICE_RULE =
      Pattern.compile("(con|prn|aux|nul|com[0-9]|lpt[0-9])", Pattern.CASE_INSENSITIVE);

  /** The rules of the class comment, stated independently of the implementation. */
  private static boolean portableByTheRules(String id) {
    if (!ALPHABET_RULE.matcher(id).matches() || id.endsWith(".") || id.contains("..")) {
      return false;
    }
    String stem = id.split("\\.", 2)[0];
    return !DEVICE_RULE.matcher(stem).matches();
  }

  /** What a directory name needs on Linux, macOS (APFS, HFS+) and Windows (NTFS, FAT). */
  private static boolean portableFileName(String name) {
    if (name.isEmpty() || name.length() > 255 || name.endsWith(".") || name.endsWith(" ")
        || name.equals(".") || name.equals("..")) {
      return false;
    }
    for (char c : name.toCharArray()) {
      if (c < 0x20 || c > 0x7e || "<>:\"/\\|?*".indexOf(c) >= 0) {
        return false;
      }
    }
    String stem = name.split("\\.", 2)[0];
    return !DEVICE_RULE.matcher(stem).matches();
  }

  private static String show(String id) {
    List<String> codes = new ArrayList<>();
    id.chars().forEach(c -> codes.add(c < 0x20 || c > 0x7e ? String.format("U+%04X", c)
        : String.valueOf((char) c)));
    return "'" + String.join("", codes) + "'";
  }
}
