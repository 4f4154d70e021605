package dev.ledger.core.fs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.InvalidExportException;
import dev.ledger.core.LedgerNotFoundException;
import dev.ledger.core.internal.journal.CommitRecord;
import dev.ledger.core.internal.journal.JournalLine;
import dev.ledger.core.internal.journal.PositionedRecord;
import dev.ledger.core.internal.json.LedgerJson;
import dev.ledger.core.spi.StoredState;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * Writes one ledger as a self-describing JSON Lines export, and reads its header back.
 *
 * <pre>
 * {"crc32c":"&lt;8 hex&gt;","export":{"exportedAt":"2026-11-30T12:00:00Z","format":1,
 *     "kind":"dev.ledger.export","recordFormat":2,"revisions":3,"root":"run-1"}}\n
 * {"crc32c":"&lt;8 hex&gt;","commit":&lt;commit record of revision 1&gt;}\n
 * {"crc32c":"&lt;8 hex&gt;","commit":&lt;commit record of revision 2&gt;}\n
 * {"crc32c":"&lt;8 hex&gt;","commit":&lt;commit record of revision 3&gt;}\n
 * </pre>
 * The first line is the header: {@code kind} is always {@code dev.ledger.export};
 * {@code format} is the export format ({@link #FORMAT}; a newer one is refused on import);
 * {@code recordFormat} the newest commit record format the library that wrote it writes
 * ({@code CommitRecord}); {@code revisions} the number of record lines that follow, one per
 * revision from 1; {@code exportedAt} the exporting store's clock. Its checksum is CRC-32C of
 * the bytes of the {@code export} value, as in a journal line. Every further line is a journal
 * line exactly as the journal frames it ({@link JournalLine}: checksum, then the commit record
 * with its revision, commit time, events with ids and sequences, command id and digest, state
 * or merge patch, state version), in revision order. Every line ends with {@code \n}.
 *
 * <p>Invariants an import checks: the header's checksum and fields; exactly
 * {@code revisions} record lines, each complete and with a valid checksum; revisions
 * 1, 2, 3 ... ; first sequences continuing from 1 without gap; every record and event of the
 * header's root, every event id the one its root and sequence give. So a truncated file (fewer
 * lines, or a last line without its newline) and a flipped byte anywhere in a line (CRC-32C
 * finds every error of up to 32 bits) are refused. {@code jq -c 'select(.commit) |
 * .commit.events[]'} lists every event.
 */
final class LedgerExport {
  /** The export format this library writes and the newest it reads. */
  static final int FORMAT = 1;
  /** The header's kind. */
  static final String KIND = "dev.ledger.export";

  private static final byte[] HEAD = "{\"crc32c\":\"".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] MIDDLE = "\",\"export\":".getBytes(StandardCharsets.US_ASCII);

  private LedgerExport() {}

  /**
   * Writes the ledger up to the revision committed when the call starts: a reader's work, no
   * lock; commits made meanwhile are not included.
   *
   * @return the revision exported
   */
  static long export(String root, Path dir, StoreLimits limits, Instant now, OutputStream out)
      throws IOException {
    if (!StoreVerifier.holdsLedger(dir)) {
      throw new LedgerNotFoundException(root);
    }
    JournalFiles journal = new JournalFiles(dir.resolve("journal"), root, limits);
    LedgerReader reader = new LedgerReader(root, journal, dir.resolve("state.json"), limits);
    Optional<StoredState> current = reader.read();
    if (current.isEmpty()) {
      throw new LedgerNotFoundException(root);
    }
    long revisions = current.get().revision();
    out.write(header(root, revisions, now));
    long written = 0;
    try (JournalScanner scan = new JournalScanner(journal, 1, 0, 1, 1)) {
      PositionedRecord r;
      while (written < revisions && (r = scan.next()) != null) {
        out.write(JournalLine.encode(r.record()));
        written++;
      }
      if (written < revisions) {
        throw new CorruptLedgerException(journal.segment(scan.segment()), scan.end(),
            "the journal ends at revision " + written + " but revision " + revisions
                + " was committed when the export started");
      }
    }
    out.flush();
    return revisions;
  }

  /** The header line, with its newline. */
  static byte[] header(String root, long revisions, Instant now) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("exportedAt", now.toString());
    node.put("format", FORMAT);
    node.put("kind", KIND);
    node.put("recordFormat", CommitRecord.FORMAT);
    node.put("revisions", revisions);
    node.put("root", root);
    byte[] body = LedgerJson.canonical(node);
    byte[] hex = HexFormat.of().toHexDigits((int) crc(body, 0, body.length))
        .getBytes(StandardCharsets.US_ASCII);
    byte[] line = new byte[HEAD.length + 8 + MIDDLE.length + body.length + 2];
    int at = 0;
    System.arraycopy(HEAD, 0, line, at, HEAD.length);
    at += HEAD.length;
    System.arraycopy(hex, 0, line, at, 8);
    at += 8;
    System.arraycopy(MIDDLE, 0, line, at, MIDDLE.length);
    at += MIDDLE.length;
    System.arraycopy(body, 0, line, at, body.length);
    line[line.length - 2] = '}';
    line[line.length - 1] = '\n';
    return line;
  }

  /** A header read back and checked. */
  record Header(String root, long revisions, int recordFormat, Instant exportedAt) {}

  /**
   * Reads and checks the header line (without its newline).
   *
   * @throws InvalidExportException if it is not the header of an export this library reads
   */
  static Header readHeader(byte[] line, int length) {
    int prefix = HEAD.length + 8 + MIDDLE.length;
    if (length < prefix + 3 || !startsWith(line, HEAD, 0)
        || !startsWith(line, MIDDLE, HEAD.length + 8) || line[length - 1] != '}') {
      throw new InvalidExportException(1, "the first line is not a ledger export header"
          + " (expected {\"crc32c\":...,\"export\":{...}})");
    }
    String hex = new String(line, HEAD.length, 8, StandardCharsets.US_ASCII);
    long actual = crc(line, prefix, length - prefix - 1);
    if (!hex.matches("[0-9a-f]{8}") || Long.parseLong(hex, 16) != actual) {
      throw new InvalidExportException(1, String.format(
          "header checksum mismatch: expected %s, actual %08x", hex, actual));
    }
    JsonNode node;
    try {
      node = LedgerJson.parse(line, prefix, length - prefix - 1);
    } catch (IOException e) {
      throw new InvalidExportException(1, "the header is not JSON: " + e.getMessage());
    }
    JsonNode kind = node.get("kind");
    if (kind == null || !KIND.equals(kind.asText(null))) {
      throw new InvalidExportException(1, "header kind is " + kind + ", expected \"" + KIND
          + "\"");
    }
    long format = number(node, "format");
    if (format > FORMAT || format < 1) {
      throw new InvalidExportException(1, "export format " + format + " is not read by this"
          + " library (it reads format 1 to " + FORMAT + ")");
    }
    long recordFormat = number(node, "recordFormat");
    if (recordFormat > CommitRecord.FORMAT || recordFormat < 1) {
      throw new InvalidExportException(1, "record format " + recordFormat + " is not read by"
          + " this library (it reads format 1 to " + CommitRecord.FORMAT + ")");
    }
    long revisions = number(node, "revisions");
    if (revisions < 1) {
      throw new InvalidExportException(1, "header names " + revisions + " revisions");
    }
    JsonNode root = node.get("root");
    JsonNode exportedAt = node.get("exportedAt");
    if (root == null || !root.isTextual() || exportedAt == null || !exportedAt.isTextual()) {
      throw new InvalidExportException(1, "header fields 'root' and 'exportedAt' must be"
          + " strings");
    }
    Instant at;
    try {
      at = Instant.parse(exportedAt.textValue());
    } catch (java.time.format.DateTimeParseException e) {
      throw new InvalidExportException(1, "header field 'exportedAt' is not an instant: "
          + exportedAt.textValue());
    }
    return new Header(root.textValue(), revisions, (int) recordFormat, at);
  }

  private static long number(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null || !value.canConvertToLong() || !value.isIntegralNumber()) {
      throw new InvalidExportException(1, "header field '" + field + "' must be an integer,"
          + " found " + value);
    }
    return value.longValue();
  }

  private static boolean startsWith(byte[] line, byte[] expected, int at) {
    for (int i = 0; i < expected.length; i++) {
      if (line[at + i] != expected[i]) {
        return false;
      }
    }
    return true;
  }

  private static long crc(byte[] bytes, int offset, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, offset, length);
    return crc.getValue();
  }
}
