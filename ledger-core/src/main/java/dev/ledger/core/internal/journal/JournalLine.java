package dev.ledger.core.internal.journal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.internal.json.CanonicalWriter;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The journal's line format: one commit record per line, checksummed, readable with
 * {@code jq}.
 *
 * <pre>
 * {"crc32c":"1a2b3c4d","commit":&lt;CommitRecord JSON, compact, keys sorted&gt;}\n
 * </pre>
 * The checksum is CRC-32C of exactly the bytes of the {@code commit} value, as 8 lower-case
 * hex digits. The prefix has a fixed length, so a reader finds those bytes without parsing.
 * A line is complete only with its {@code \n}: a line without it is an append in progress or
 * torn by a crash. A line never holds a zero byte (JSON text escapes control characters), so
 * zero bytes can mark space a writer has preallocated after the last line. A record written
 * while earlier ones were not yet forced (group commit) is format 3 and says which were
 * ({@code forcedThrough}): that is how a reader tells the damage a power cut does to an
 * unforced group from damage before the tail ({@link #provesDamageBefore}). {@code jq -c .commit.events[] journal/*.jsonl} lists every event.
 */
public final class JournalLine {
  private static final byte[] HEAD = "{\"crc32c\":\"".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] MIDDLE = "\",\"commit\":".getBytes(StandardCharsets.US_ASCII);
  /** Bytes before the record: head, 8 hex digits, middle. */
  static final int PREFIX = HEAD.length + 8 + MIDDLE.length;
  private static final byte[] HEX_PLACEHOLDER = "00000000".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] HEX_DIGITS = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  private JournalLine() {}

  /**
   * The longest line a store with {@code options} writes or reads: two states' worth plus 64
   * payloads' worth, capped below 2 GiB. A longer line is refused on write
   * ({@code LimitExceededException}) and treated as damage on read.
   */
  public static int maxLineBytes(LedgerOptions options) {
    long max = 2L * options.maxStateBytes() + 64L * options.maxEventPayloadBytes() + 4096;
    return (int) Math.min(max, Integer.MAX_VALUE - 64);
  }

  /**
   * The checksum digits of the first line of a journal segment, read at their fixed place,
   * or null if the segment is shorter than a line's prefix. Two segments whose first records
   * differ in any byte have other digits here, but for a chance of one in 2<sup>32</sup>.
   *
   * @throws IOException if the read fails
   */
  public static byte[] firstChecksum(java.nio.channels.FileChannel segment) throws IOException {
    java.nio.ByteBuffer digits = java.nio.ByteBuffer.allocate(8);
    while (digits.hasRemaining()) {
      if (segment.read(digits, HEAD.length + digits.position()) < 0) {
        return null;
      }
    }
    return digits.array();
  }

  /** The complete line, with its trailing newline, for {@code record}. */
  public static byte[] encode(CommitRecord record) {
    return encodeSized(record, 0);
  }

  /**
   * {@link #encode(CommitRecord)}, with a guess of the bytes the record's state or patch
   * takes: the buffer the line is generated into starts that much larger, so a large state
   * is not copied through every doubling of a small buffer. Only the capacity depends on the
   * guess, never a byte of the line.
   *
   * @param record the record
   * @param changeBytesHint the expected canonical size of the record's state or patch, or 0
   * @return the line
   */
  public static byte[] encodeSized(CommitRecord record, int changeBytesHint) {
    return encodeFramed(record, -1, changeBytesHint);
  }

  /**
   * The line of {@code record}, format 3 with {@code forcedThrough} if that is 0 or more.
   * The record is written once, straight into the line after a placeholder prefix
   * ({@link CanonicalWriter}); the checksum is then taken over the bytes in place and its
   * digits written over the placeholder.
   */
  private static byte[] encodeFramed(CommitRecord record, long forcedThrough,
      int changeBytesHint) {
    long capacity = Math.max(512, record.events().size() * 512L)
        + Math.max(0, (long) changeBytesHint) + (changeBytesHint > 0 ? PREFIX + 256 : 0);
    CanonicalWriter out = new CanonicalWriter((int) Math.min(capacity, 1 << 30));
    byte[] byJackson = writeFramed(out, record, forcedThrough);
    if (byJackson != null) {
      return byJackson;
    }
    byte[] line = out.array();
    return out.size() == line.length ? line : Arrays.copyOf(line, out.size());
  }

  /**
   * Writes the line of {@code record} (format 3 with {@code forcedThrough} if that is 0 or
   * more) into the empty {@code out}. Returns null, or, where the record holds a node kind only
   * Jackson's writer covers, the line that writer gave (what {@code out} holds is then to be
   * discarded).
   */
  private static byte[] writeFramed(CanonicalWriter out, CommitRecord record,
      long forcedThrough) {
    out.raw(HEAD);
    out.raw(HEX_PLACEHOLDER);
    out.raw(MIDDLE);
    boolean written;
    try {
      written = record.writeJson(out, forcedThrough);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("record cannot be written as JSON: " + e.getMessage(),
          e);
    }
    if (!written) {
      ObjectNode json = record.toJson();
      if (forcedThrough >= 0) {
        json.put("format", CommitRecord.GROUPED_FORMAT);
        json.put("forcedThrough", forcedThrough);
      }
      return frame(LedgerJson.canonical(json));
    }
    out.raw('}');
    out.raw('\n');
    byte[] line = out.array();
    int bodyLength = out.size() - PREFIX - 2;
    writeHex((int) crc(line, PREFIX, bodyLength), line, HEAD.length);
    return null;
  }

  /**
   * Writes the line {@link #encode(CommitRecord, long, int)} gives into {@code out}, which is
   * emptied first: the line is then {@code out.array()} up to {@code out.size()}. For a writer
   * that reuses one buffer for its lines instead of a new array (and its growth and final
   * copy) per line; the bytes are the same.
   *
   * @param out the buffer, emptied and then holding the line
   * @param record the record
   * @param forcedThrough the newest revision known durable
   * @throws IllegalArgumentException as {@link #encode(CommitRecord, long, int)}
   */
  public static void encodeInto(CanonicalWriter out, CommitRecord record, long forcedThrough) {
    out.reset();
    byte[] byJackson = writeFramed(out, record,
        forcedThrough >= record.revision() - 1 ? -1 : Math.max(0, forcedThrough));
    if (byJackson != null) {
      out.reset();
      out.raw(byJackson, 0, byJackson.length);
    }
  }

  /**
   * The line for {@code record} written by a writer that knows the records up to revision
   * {@code forcedThrough} durable: the format 2 line if that is every record before it, else
   * the record as format 3 with its {@code forcedThrough} (see {@link CommitRecord}).
   */
  public static byte[] encode(CommitRecord record, long forcedThrough) {
    return encode(record, forcedThrough, 0);
  }

  /**
   * {@link #encode(CommitRecord, long)} with a guess of the size of the record's state or
   * patch (see {@link #encodeSized}); the line does not depend on it.
   *
   * @param record the record
   * @param forcedThrough the newest revision known durable
   * @param changeBytesHint the expected canonical size of the record's state or patch, or 0
   * @return the line
   */
  public static byte[] encode(CommitRecord record, long forcedThrough, int changeBytesHint) {
    if (forcedThrough >= record.revision() - 1) {
      return encodeSized(record, changeBytesHint);
    }
    return encodeFramed(record, Math.max(0, forcedThrough), changeBytesHint);
  }

  /**
   * Whether a line proves that a bad line before it, where the record of revision
   * {@code badRevision} was due, is damage and not the torn part of an unforced group: its
   * checksum holds and it is not a format 3 record written before {@code badRevision} was
   * forced (see {@link CommitRecord}). A line whose checksum fails proves nothing.
   */
  public static boolean provesDamageBefore(byte[] line, int length, long badRevision) {
    CommitRecord record;
    try {
      record = decode(line, length);
    } catch (InvalidRecordException | CommitRecord.FutureFormatException e) {
      return true; // written whole, by no crash: nothing excuses the bad line
    } catch (DefectException e) {
      return false;
    }
    if (record.format() != CommitRecord.GROUPED_FORMAT) {
      return true;
    }
    try {
      return CommitRecord.forcedThrough(LedgerJson.parseRecord(line, PREFIX,
          length - PREFIX - 1)) >= badRevision;
    } catch (IOException | IllegalArgumentException e) {
      return true;
    }
  }

  private static byte[] frame(byte[] body) {
    byte[] line = new byte[PREFIX + body.length + 2];
    System.arraycopy(HEAD, 0, line, 0, HEAD.length);
    writeHex((int) crc(body, 0, body.length), line, HEAD.length);
    System.arraycopy(MIDDLE, 0, line, HEAD.length + 8, MIDDLE.length);
    System.arraycopy(body, 0, line, PREFIX, body.length);
    line[line.length - 2] = '}';
    line[line.length - 1] = '\n';
    return line;
  }

  private static void writeHex(int value, byte[] into, int offset) {
    for (int i = 7; i >= 0; i--) {
      into[offset + i] = HEX_DIGITS[value & 0xf];
      value >>>= 4;
    }
  }

  /**
   * Decodes a line (without its newline).
   *
   * @throws DefectException if the frame, the checksum or the record is bad
   * @throws CommitRecord.FutureFormatException if the record is from a newer format
   */
  public static CommitRecord decode(byte[] line, int length) {
    int bodyLength = checkFrame(line, length);
    try {
      return CommitRecord.fromJson(LedgerJson.parseRecord(line, PREFIX, bodyLength));
    } catch (IOException | IllegalArgumentException e) {
      throw new InvalidRecordException("checksum holds but the record is invalid: "
          + e.getMessage());
    }
  }

  /**
   * Decodes a line (without its newline) as {@link #decode} does, with the same checks and
   * failures, except that the events' payloads are parsed but not built: each is JSON null.
   * For a reader that checks and folds records but never looks at payloads (verify).
   *
   * @throws DefectException if the frame, the checksum or the record is bad
   * @throws CommitRecord.FutureFormatException if the record is from a newer format
   */
  public static CommitRecord decodeWithoutPayloads(byte[] line, int length) {
    int bodyLength = checkFrame(line, length);
    EventArrayScanner.Events scanned = EventArrayScanner.scan(line, PREFIX, bodyLength, false);
    if (scanned != null) {
      // The events checked and read from the bytes; the record's own keys and its state or
      // patch read by the shell's streaming reader from the record with the array cut out.
      // Anything outside what those accept is answered by the whole line's decoding below,
      // message and all.
      byte[] shell = EventArrayScanner.withoutEvents(line, PREFIX, bodyLength, scanned);
      try {
        CommitRecord record = PatchRecordReader.read(shell, 0, shell.length, scanned.events());
        if (record != null) {
          return record;
        }
      } catch (IOException | RuntimeException e) {
        // decode the whole line
      }
    }
    try {
      return PayloadSkippingReader.read(line, PREFIX, bodyLength);
    } catch (IOException | IllegalArgumentException e) {
      throw new InvalidRecordException("checksum holds but the record is invalid: "
          + e.getMessage());
    }
  }

  /** Checks the frame and the checksum; returns the record's length. */
  static int checkFrame(byte[] line, int length) {
    if (length < PREFIX + 3) {
      throw new DefectException("line of " + length + " bytes is too short for a record");
    }
    for (int i = 0; i < HEAD.length; i++) {
      if (line[i] != HEAD[i]) {
        throw new DefectException("line does not start with the record frame");
      }
    }
    for (int i = 0; i < MIDDLE.length; i++) {
      if (line[HEAD.length + 8 + i] != MIDDLE[i]) {
        throw new DefectException("line does not have the record frame");
      }
    }
    if (line[length - 1] != '}') {
      throw new DefectException("line does not end the record frame");
    }
    long expected = parseHex(line, HEAD.length);
    int bodyLength = length - PREFIX - 1;
    long actual = crc(line, PREFIX, bodyLength);
    if (expected != actual) {
      throw new DefectException(String.format("checksum mismatch: expected %08x, actual %08x",
          expected, actual));
    }
    return bodyLength;
  }

  private static long crc(byte[] bytes, int offset, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, offset, length);
    return crc.getValue();
  }

  private static long parseHex(byte[] line, int offset) {
    long value = 0;
    for (int i = 0; i < 8; i++) {
      int digit = Character.digit(line[offset + i], 16);
      if (digit < 0 || Character.isUpperCase(line[offset + i])) {
        throw new DefectException("checksum field is not 8 lower-case hex digits");
      }
      value = (value << 4) | digit;
    }
    return value;
  }

  /** A line that is not a valid record; the reader decides whether it is a torn tail. */
  public static class DefectException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    DefectException(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * A line whose checksum holds but whose record is not one this library writes. No crash
   * produces this (a torn write fails the checksum), so it is damage wherever it is, even at
   * the tail, and is never cut.
   */
  public static final class InvalidRecordException extends DefectException {
    private static final long serialVersionUID = 1L;

    InvalidRecordException(String message) {
      super(message);
    }
  }
}
