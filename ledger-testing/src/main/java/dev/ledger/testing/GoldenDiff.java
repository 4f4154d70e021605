package dev.ledger.testing;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The differences between an actual directory tree and a golden one, described for a person:
 * missing and extra files, and for each differing file the first differing line (and, in JSON
 * and JSON Lines files, the JSON pointer of the first differing value). Only regular files
 * count; empty directories do not, as git keeps none.
 */
final class GoldenDiff {
  /** At most this many paths are listed per kind of difference, and this many files shown. */
  static final int MAX_LISTED = 50;
  static final int MAX_SHOWN = 10;
  /** Lines longer than this are shown as a window around their first difference. */
  private static final int WINDOW = 60;

  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  final List<String> missing = new ArrayList<>();
  final List<String> extra = new ArrayList<>();
  /** Differing files, each with the description of its first difference. */
  final SortedMap<String, String> different = new TreeMap<>();

  private GoldenDiff() {}

  /** Compares every regular file of both trees. */
  static GoldenDiff between(Path golden, Path actual) {
    SortedMap<String, Path> expectedFiles = files(golden);
    SortedMap<String, Path> actualFiles = files(actual);
    GoldenDiff diff = new GoldenDiff();
    for (String name : expectedFiles.keySet()) {
      if (!actualFiles.containsKey(name)) {
        diff.missing.add(name);
      }
    }
    for (String name : actualFiles.keySet()) {
      Path expectedFile = expectedFiles.get(name);
      if (expectedFile == null) {
        diff.extra.add(name);
        continue;
      }
      byte[] expected = read(expectedFile);
      byte[] found = read(actualFiles.get(name));
      if (!Arrays.equals(expected, found)) {
        diff.different.put(name, describe(name, expected, found));
      }
    }
    return diff;
  }

  boolean isEmpty() {
    return missing.isEmpty() && extra.isEmpty() && different.isEmpty();
  }

  /** The report: counts, then each missing, extra and differing path. */
  String report(Path golden, Path actual) {
    StringBuilder out = new StringBuilder();
    out.append("directory ").append(actual).append(" does not match golden ").append(golden)
        .append(" (").append(missing.size()).append(" missing, ").append(extra.size())
        .append(" extra, ").append(different.size()).append(" different)\n");
    list(out, "missing (in golden, not in actual): ", missing);
    list(out, "extra (in actual, not in golden):   ", extra);
    int shown = 0;
    for (var entry : different.entrySet()) {
      if (shown++ == MAX_SHOWN) {
        out.append("  … and ").append(different.size() - MAX_SHOWN)
            .append(" more different files\n");
        break;
      }
      out.append("  different: ").append(entry.getKey()).append('\n')
          .append(entry.getValue().indent(4));
    }
    return out.toString();
  }

  private static void list(StringBuilder out, String label, List<String> paths) {
    for (int i = 0; i < paths.size(); i++) {
      if (i == MAX_LISTED) {
        out.append("  … and ").append(paths.size() - MAX_LISTED).append(" more\n");
        return;
      }
      out.append("  ").append(label).append(paths.get(i)).append('\n');
    }
  }

  // ------------------------------------------------------------------ one file

  /** The first difference of two files' content. */
  static String describe(String name, byte[] expected, byte[] actual) {
    Optional<String> expectedText = utf8(expected);
    Optional<String> actualText = utf8(actual);
    if (expectedText.isEmpty() || actualText.isEmpty()) {
      int at = Arrays.mismatch(expected, actual);
      return "binary content differs at byte " + at + " (expected " + expected.length
          + " bytes, actual " + actual.length + ")";
    }
    String[] expectedLines = expectedText.get().split("\n", -1);
    String[] actualLines = actualText.get().split("\n", -1);
    int line = 0;
    while (line < expectedLines.length && line < actualLines.length
        && expectedLines[line].equals(actualLines[line])) {
      line++;
    }
    String expectedLine = line < expectedLines.length ? expectedLines[line] : null;
    String actualLine = line < actualLines.length ? actualLines[line] : null;
    StringBuilder out = new StringBuilder("line " + (line + 1) + ":\n");
    int column = expectedLine != null && actualLine != null
        ? firstDifference(expectedLine, actualLine) : 0;
    out.append("  expected: ").append(show(expectedLine, column)).append('\n');
    out.append("  actual:   ").append(show(actualLine, column));
    String lower = name.toLowerCase(java.util.Locale.ROOT);
    if (lower.endsWith(".json")) {
      jsonDifference(expectedText.get(), actualText.get())
          .ifPresent(d -> out.append('\n').append(d));
    } else if (lower.endsWith(".jsonl") && expectedLine != null && actualLine != null) {
      int number = line + 1;
      jsonDifference(expectedLine, actualLine)
          .ifPresent(d -> out.append('\n').append(d).append(" (in line ").append(number)
              .append(')'));
    }
    return out.toString();
  }

  private static int firstDifference(String a, String b) {
    int n = Math.min(a.length(), b.length());
    for (int i = 0; i < n; i++) {
      if (a.charAt(i) != b.charAt(i)) {
        return i;
      }
    }
    return n;
  }

  /** A line quoted with escapes, cut to a window around {@code column} if long. */
  private static String show(String line, int column) {
    if (line == null) {
      return "<end of file>";
    }
    int from = 0;
    int to = line.length();
    if (line.length() > 2 * WINDOW) {
      from = Math.max(0, column - WINDOW / 2);
      to = Math.min(line.length(), from + WINDOW);
    }
    StringBuilder out = new StringBuilder();
    if (from > 0) {
      out.append("(column ").append(column + 1).append(") …");
    }
    out.append('"');
    for (int i = from; i < to; i++) {
      char c = line.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
    if (to < line.length()) {
      out.append('…');
    }
    return out.toString();
  }

  /** Where two JSON documents first differ, if both parse. */
  private static Optional<String> jsonDifference(String expected, String actual) {
    JsonNode expectedTree;
    JsonNode actualTree;
    try {
      expectedTree = JSON.readTree(expected);
      actualTree = JSON.readTree(actual);
    } catch (JsonProcessingException e) {
      return Optional.empty();
    }
    if (expectedTree == null || actualTree == null) {
      return Optional.empty();
    }
    String found = firstDifference(expectedTree, actualTree, "");
    return Optional.of(found != null ? found
        : "same JSON values: key order, number format or white space differ");
  }

  /**
   * The first difference of two JSON trees in document order, as {@code JSON pointer P:
   * expected X, actual Y}, or null if equal. Object members are compared in the expected
   * order, then members only the actual has.
   */
  private static String firstDifference(JsonNode expected, JsonNode actual, String pointer) {
    if (expected.isObject() && actual.isObject()) {
      for (Iterator<String> names = expected.fieldNames(); names.hasNext(); ) {
        String field = names.next();
        String child = pointer + "/" + escape(field);
        if (!actual.has(field)) {
          return "JSON pointer " + child + ": expected " + brief(expected.get(field))
              + ", actual has no such member";
        }
        String found = firstDifference(expected.get(field), actual.get(field), child);
        if (found != null) {
          return found;
        }
      }
      for (Iterator<String> names = actual.fieldNames(); names.hasNext(); ) {
        String field = names.next();
        if (!expected.has(field)) {
          return "JSON pointer " + pointer + "/" + escape(field)
              + ": expected no such member, actual " + brief(actual.get(field));
        }
      }
      return null;
    }
    if (expected.isArray() && actual.isArray()) {
      int n = Math.min(expected.size(), actual.size());
      for (int i = 0; i < n; i++) {
        String found = firstDifference(expected.get(i), actual.get(i), pointer + "/" + i);
        if (found != null) {
          return found;
        }
      }
      if (expected.size() != actual.size()) {
        String at = pointer + "/" + n;
        return "JSON pointer " + at + ": expected "
            + (n < expected.size() ? brief(expected.get(n)) : "the end of the array (size "
                + expected.size() + ")")
            + ", actual " + (n < actual.size() ? brief(actual.get(n))
                : "the end of the array (size " + actual.size() + ")");
      }
      return null;
    }
    if (!expected.equals(actual)) {
      return "JSON pointer " + (pointer.isEmpty() ? "\"\" (the whole document)" : pointer)
          + ": expected " + brief(expected) + ", actual " + brief(actual);
    }
    return null;
  }

  /** RFC 6901: '~' becomes "~0" and '/' becomes "~1". */
  private static String escape(String field) {
    return field.replace("~", "~0").replace("/", "~1");
  }

  private static String brief(JsonNode node) {
    String text = node.toString();
    return text.length() <= WINDOW ? text : text.substring(0, WINDOW) + "…";
  }

  // ------------------------------------------------------------------ files

  /** Regular files under {@code root} by '/'-separated relative path, sorted. */
  static SortedMap<String, Path> files(Path root) {
    SortedMap<String, Path> files = new TreeMap<>();
    try (Stream<Path> all = Files.walk(root)) {
      all.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
          .forEach(p -> files.put(root.relativize(p).toString().replace('\\', '/'), p));
    } catch (IOException e) {
      throw new UncheckedIOException("listing " + root, e);
    }
    return files;
  }

  private static byte[] read(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + file, e);
    }
  }

  private static Optional<String> utf8(byte[] bytes) {
    try {
      return Optional.of(StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes)).toString());
    } catch (CharacterCodingException e) {
      return Optional.empty();
    }
  }
}
