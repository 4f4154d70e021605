package dev.ledger.core.fs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/** Builds small stores for the verify and repair tests, and damages their files. */
final class VerifyFixture {
  static final LedgerOptions OPTIONS = LedgerOptions.defaults()
      .withClock(Clock.fixed(Instant.parse("2026-11-29T12:00:00Z"), ZoneOffset.UTC))
      .withCheckpointInterval(1000);

  /** A state with a field that changes and one that does not (so records are patches). */
  record Counter(int value, String label) {}

  private VerifyFixture() {}

  /** Commits {@code n} revisions to {@code root}, each with one event and a command id. */
  static void commit(Path dir, LedgerOptions options, String root, int n) {
    try (FileLedgerStore store = FileLedgerStore.open(dir, options)) {
      Ledger<Counter> ledger = store.ledger(root, Counter.class);
      long revision = ledger.find().map(v -> v.revision()).orElse(0L);
      for (long i = revision; i < revision + n; i++) {
        ledger.commit(i, new Counter((int) i + 1, "label"), EventDraft.of("inc",
            Map.of("to", i + 1)).withCommandId("cmd-" + root + "-" + (i + 1)));
      }
    }
  }

  static Path ledgerDir(Path dir, String root) {
    return dir.resolve("ledgers").resolve(root);
  }

  static Path segment(Path dir, String root, long base) {
    return ledgerDir(dir, root).resolve("journal").resolve(JournalFiles.name(base));
  }

  /** Offsets where each line of {@code file} starts, up to the first zero byte. */
  static List<Long> lineStarts(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    List<Long> starts = new ArrayList<>();
    long start = 0;
    for (int i = 0; i < bytes.length && bytes[i] != 0; i++) {
      if (bytes[i] == '\n') {
        starts.add(start);
        start = i + 1;
      }
    }
    return starts;
  }

  /** The commit JSON of the line starting at {@code offset}. */
  static ObjectNode commitAt(Path file, long offset) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    int end = (int) offset;
    while (bytes[end] != '\n') {
      end++;
    }
    JsonNode line = LedgerJson.parse(bytes, (int) offset, end - (int) offset);
    return (ObjectNode) line.get("commit").deepCopy();
  }

  /** A journal line for {@code commit} whose checksum holds. */
  static byte[] frame(JsonNode commit) {
    byte[] body = LedgerJson.canonical(commit);
    CRC32C crc = new CRC32C();
    crc.update(body);
    String head = "{\"crc32c\":\"" + HexFormat.of().toHexDigits((int) crc.getValue())
        + "\",\"commit\":";
    byte[] prefix = head.getBytes(StandardCharsets.US_ASCII);
    byte[] line = new byte[prefix.length + body.length + 2];
    System.arraycopy(prefix, 0, line, 0, prefix.length);
    System.arraycopy(body, 0, line, prefix.length, body.length);
    line[line.length - 2] = '}';
    line[line.length - 1] = '\n';
    return line;
  }

  /** Replaces the line at {@code offset} of {@code file} with {@code line} (any length). */
  static void replaceLine(Path file, long offset, byte[] line) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    int end = (int) offset;
    while (bytes[end] != '\n') {
      end++;
    }
    byte[] out = new byte[bytes.length - (end + 1 - (int) offset) + line.length];
    System.arraycopy(bytes, 0, out, 0, (int) offset);
    System.arraycopy(line, 0, out, (int) offset, line.length);
    System.arraycopy(bytes, end + 1, out, (int) offset + line.length, bytes.length - end - 1);
    Files.write(file, out);
  }

  /** Every file and directory under {@code dir}: path → size, mtime, and content hash. */
  static Map<String, String> tree(Path dir) {
    Map<String, String> out = new TreeMap<>();
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) paths::iterator) {
        BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class,
            LinkOption.NOFOLLOW_LINKS);
        String content = a.isRegularFile()
            ? LedgerJson.sha256Hex(Files.readAllBytes(p)) : "dir";
        out.put(dir.relativize(p).toString(), a.size() + " " + a.lastModifiedTime().toMillis()
            + " " + a.lastModifiedTime() + " " + content);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** The command index entry files of {@code root}, sorted. */
  static List<Path> commandEntries(Path dir, String root) throws IOException {
    Path commands = ledgerDir(dir, root).resolve("commands");
    try (Stream<Path> paths = Files.walk(commands)) {
      return paths.filter(Files::isRegularFile).sorted().toList();
    }
  }
}
