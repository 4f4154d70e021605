package dev.ledger.core.internal.journal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.Event;
import dev.ledger.core.InvalidExportException;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.internal.io.Identifiers;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * The ledger export: one ledger as self-describing JSON Lines, the same for every store.
 *
 * <pre>
 * {"crc32c":"&lt;8 hex&gt;","export":{"exportedAt":"2026-11-30T12:00:00Z","format":1,
 *     "kind":"dev.ledger.export","recordFormat":2,"revisions":3,"root":"run-1"}}\n
 * {"crc32c":"&lt;8 hex&gt;","commit":&lt;commit record of revision 1&gt;}\n
 * {"crc32c":"&lt;8 hex&gt;","commit":&lt;commit record of revision 2&gt;}\n
 * {"crc32c":"&lt;8 hex&gt;","commit":&lt;commit record of revision 3&gt;}\n
 * </pre>
 * The first line is the header: {@code kind} is always {@code dev.ledger.export};
 * {@code format} the export format ({@link #FORMAT}; a newer one is refused);
 * {@code recordFormat} the newest commit record format of the library that wrote it
 * ({@link CommitRecord#FORMAT}); {@code revisions} the number of record lines that follow,
 * one per revision from 1; {@code exportedAt} the exporting store's clock. Its checksum is
 * CRC-32C of the bytes of the {@code export} value, as in a journal line. Every further line is
 * a journal line ({@link JournalLine}: checksum, then the commit record with its revision,
 * commit time, events with ids and sequences, command id and digest, state or merge patch,
 * state version), in revision order. Every line, the last included, ends with {@code \n}.
 *
 * <p>Invariants an import checks ({@link Validator}) before it writes anything: the header's
 * frame, checksum and fields; exactly {@code revisions} record lines, each complete (with its
 * newline) and with a valid checksum; revisions 1, 2, 3 ...; first sequences continuing from 1
 * without gap; every record of the header's root, every event id the one its root and
 * sequence give; a patch only after a state; each command id recorded once. So a truncated
 * file (fewer lines, or a last line without its newline) and a flipped byte in any line
 * (CRC-32C finds every error burst of up to 32 bits) are refused.
 * {@code jq -c 'select(.commit) | .commit.events[]'} lists every event.
 */
public final class LedgerExportFormat {
  /** The export format this library writes and the newest it reads. */
  public static final int FORMAT = 1;
  /** The header's kind. */
  public static final String KIND = "dev.ledger.export";

  private static final byte[] HEAD = "{\"crc32c\":\"".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] MIDDLE = "\",\"export\":".getBytes(StandardCharsets.US_ASCII);
  private static final int PREFIX = HEAD.length + 8 + MIDDLE.length;

  private LedgerExportFormat() {}

  /**
   * Writes the export of {@code root}: the header, then the first {@code revisions} records
   * of {@code source}.
   *
   * @return the number of records written: less than {@code revisions} only if the source
   *     ended early (the caller reports that as damage)
   */
  public static long write(String root, long revisions, Instant now, RecordSource source,
      OutputStream out) throws IOException {
    out.write(header(root, revisions, now));
    long written = 0;
    PositionedRecord r;
    while (written < revisions && (r = source.next()) != null) {
      out.write(JournalLine.encode(r.record()));
      written++;
    }
    out.flush();
    return written;
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
    byte[] line = new byte[PREFIX + body.length + 2];
    System.arraycopy(HEAD, 0, line, 0, HEAD.length);
    System.arraycopy(hex, 0, line, HEAD.length, 8);
    System.arraycopy(MIDDLE, 0, line, HEAD.length + 8, MIDDLE.length);
    System.arraycopy(body, 0, line, PREFIX, body.length);
    line[line.length - 2] = '}';
    line[line.length - 1] = '\n';
    return line;
  }

  /**
   * A header read back and checked.
   *
   * @param root the ledger's root id, a valid identifier
   * @param revisions the number of record lines that follow, at least 1
   * @param recordFormat the newest record format of the writer
   * @param exportedAt the exporting store's time
   */
  public record Header(String root, long revisions, int recordFormat, Instant exportedAt) {}

  /**
   * Reads and checks the header, the first line of {@code in}.
   *
   * @throws InvalidExportException if the input is empty or does not start with the header
   *     of an export this library reads
   */
  public static Header readHeader(Lines in) {
    byte[] line = in.next(1);
    if (line == null) {
      throw new InvalidExportException(0, "the input is empty");
    }
    int length = in.length();
    if (length < PREFIX + 3 || !startsWith(line, HEAD, 0)
        || !startsWith(line, MIDDLE, HEAD.length + 8) || line[length - 1] != '}') {
      throw new InvalidExportException(1, "the first line is not a ledger export header"
          + " (expected {\"crc32c\":...,\"export\":{...}})");
    }
    String hex = new String(line, HEAD.length, 8, StandardCharsets.US_ASCII);
    long actual = crc(line, PREFIX, length - PREFIX - 1);
    if (!hex.matches("[0-9a-f]{8}") || Long.parseLong(hex, 16) != actual) {
      throw new InvalidExportException(1, String.format(
          "header checksum mismatch: expected %s, actual %08x", hex, actual));
    }
    JsonNode node;
    try {
      node = LedgerJson.parseRecord(line, PREFIX, length - PREFIX - 1);
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
    if (!Identifiers.isValid(root.textValue())) {
      throw new InvalidExportException(1, "header root '" + root.textValue()
          + "' is not a valid root id");
    }
    Instant at;
    try {
      at = Instant.parse(exportedAt.textValue());
    } catch (DateTimeParseException e) {
      throw new InvalidExportException(1, "header field 'exportedAt' is not an instant: "
          + exportedAt.textValue());
    }
    return new Header(root.textValue(), revisions, (int) recordFormat, at);
  }

  private static long number(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null || !value.isIntegralNumber() || !value.canConvertToLong()) {
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

  /**
   * Checks the record lines of one export in order and folds them: what every store's import
   * runs over the whole input before it writes anything. Not thread-safe.
   */
  public static final class Validator {
    private final Header header;
    private final Set<String> commands = new HashSet<>();
    private long revision;
    private long nextSequence = 1;
    private JsonNode state;
    private CommitRecord last;

    /** A validator of the records that follow {@code header}. */
    public Validator(Header header) {
      this.header = header;
    }

    /**
     * Reads every record line of {@code in} and checks that nothing follows them.
     *
     * @param each given each valid record and its line (valid up to {@code in.length()},
     *     without the newline), in order
     * @throws InvalidExportException at the first fault, naming its line
     */
    public void readAll(Lines in, RecordConsumer each) throws IOException {
      for (long r = 1; r <= header.revisions(); r++) {
        long lineNumber = r + 1;
        byte[] line = in.next(lineNumber);
        if (line == null) {
          throw new InvalidExportException(lineNumber, "the input ends after " + (r - 1)
              + " of " + header.revisions() + " records (truncated)");
        }
        each.accept(accept(line, in.length(), lineNumber), line, in.length());
      }
      if (in.next(header.revisions() + 2) != null) {
        throw new InvalidExportException(header.revisions() + 2, "more lines than the "
            + header.revisions() + " records the header names");
      }
    }

    private CommitRecord accept(byte[] line, int length, long lineNumber) {
      CommitRecord r;
      try {
        r = JournalLine.decode(line, length);
      } catch (CommitRecord.FutureFormatException | JournalLine.DefectException e) {
        throw new InvalidExportException(lineNumber, e.getMessage());
      }
      String root = header.root();
      if (!r.root().equals(root)) {
        throw new InvalidExportException(lineNumber, "record of root '" + r.root()
            + "', expected '" + root + "'");
      }
      if (r.revision() != revision + 1) {
        throw new InvalidExportException(lineNumber, "revision " + r.revision()
            + ", expected " + (revision + 1));
      }
      if (r.firstSequence() != nextSequence) {
        throw new InvalidExportException(lineNumber, "first sequence " + r.firstSequence()
            + ", expected " + nextSequence);
      }
      if (r.state() == null && state == null) {
        throw new InvalidExportException(lineNumber, "revision " + r.revision()
            + " is a patch but no state precedes it");
      }
      for (Event e : r.events()) {
        String expected = CommitRecord.eventId(root, e.sequence());
        if (!e.id().equals(expected)) {
          throw new InvalidExportException(lineNumber, "event " + e.sequence() + " has id "
              + e.id() + ", expected " + expected);
        }
      }
      if (r.commandId() != null && !commands.add(r.commandId())) {
        throw new InvalidExportException(lineNumber, "command " + r.commandId()
            + " is recorded twice");
      }
      state = r.applyTo(state);
      nextSequence = r.nextSequence();
      revision = r.revision();
      last = r;
      return r;
    }

    /** The state after the last record. */
    public JsonNode state() {
      return state;
    }

    /** The sequence the next event gets. */
    public long nextSequence() {
      return nextSequence;
    }

    /** The last record. */
    public CommitRecord last() {
      return last;
    }

    /** The number of command ids recorded. */
    public int commands() {
      return commands.size();
    }
  }

  /** What a {@link Validator} hands each record to. */
  @FunctionalInterface
  public interface RecordConsumer {
    /** Takes a valid record and its line, valid up to {@code length}, without newline. */
    void accept(CommitRecord record, byte[] line, int length) throws IOException;
  }

  /** Lines of an input, each bounded; a last line without its newline is a truncation. */
  public static final class Lines {
    private final InputStream in;
    private final int maxLine;
    private byte[] buffer = new byte[8192];
    private int length;

    /** Lines of {@code in}, none longer than {@code maxLine} bytes. */
    public Lines(InputStream in, int maxLine) {
      this.in = new BufferedInputStream(in, 64 * 1024);
      this.maxLine = maxLine;
    }

    /** The length of the line {@link #next} returned last. */
    public int length() {
      return length;
    }

    /**
     * The next line without its newline (valid up to {@link #length()}; the array is reused),
     * or null at the end of the input.
     *
     * @throws InvalidExportException if the input ends inside a line or a line is too long
     * @throws LedgerIOException if the input cannot be read
     */
    public byte[] next(long lineNumber) {
      int n = 0;
      try {
        while (true) {
          int b = in.read();
          if (b < 0) {
            if (n == 0) {
              return null;
            }
            throw new InvalidExportException(lineNumber, "the input ends inside this line,"
                + " after " + n + " bytes without a newline (truncated)");
          }
          if (b == '\n') {
            length = n;
            return buffer;
          }
          if (n == maxLine) {
            throw new InvalidExportException(lineNumber, "line longer than " + maxLine
                + " bytes, the longest this store reads");
          }
          if (n == buffer.length) {
            buffer = Arrays.copyOf(buffer, (int) Math.min((long) n * 2, maxLine));
          }
          buffer[n++] = (byte) b;
        }
      } catch (IOException e) {
        throw new LedgerIOException(null, "Reading the ledger export failed at line "
            + lineNumber + ": " + e.getMessage(), e);
      }
    }
  }
}
