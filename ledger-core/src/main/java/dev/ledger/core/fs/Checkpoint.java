package dev.ledger.core.fs;

import static dev.ledger.core.internal.json.JsonFields.integer;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.UnsupportedFormatException;
import dev.ledger.core.internal.io.SafeFiles;
import dev.ledger.core.internal.json.CanonicalWriter;
import dev.ledger.core.internal.json.JsonFields;
import dev.ledger.core.internal.json.JsonScanner;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;

/**
 * A ledger's checkpoint, {@code state.json}: the state as of one revision and the journal
 * position right after that revision's record. Readers load it and replay only the records
 * after that position; it is never the commit point (the journal append is).
 *
 * <pre>
 * {
 *   "format" : 2,
 *   "journal" : {
 *     "nextSequence" : 8,           sequence of the first event after this revision
 *     "offset" : 5120,              byte offset right after this revision's record
 *     "segment" : 1                 segment holding that offset
 *   },
 *   "revision" : 5,
 *   "root" : "run-1",
 *   "state" : { ... },
 *   "stateVersion" : 0,             the state version the state was written with
 *   "updatedAt" : "2026-11-29T19:22:32.123Z"
 * }
 * </pre>
 * Format 1 (still read) has no {@code stateVersion}: its state is version 0.
 *
 * <p>A ledger's own checkpoint is indented, to be read with {@code cat}. A patch log's
 * ({@link dev.ledger.core.spi.PatchLog#checkpoint}, {@link #encodeCompact}) holds its caller's
 * whole data (a collection partition of many documents) and is rewritten as often as the
 * journal outgrows it: it is the same JSON, compact (keys sorted, no indentation), which
 * costs about half the bytes and the time to write and to read. Readers take either.
 *
 * Written whole by temp file, {@code force}, atomic rename, directory {@code force}
 * ({@link SafeFiles#replace}), every {@code checkpointInterval} commits and on close, under
 * the ledger's lock. A reader therefore sees an old or a new checkpoint, never a mixture; a
 * file that does not parse is damage and is reported, never treated as empty. A newer
 * {@code format} is refused.
 *
 * @param root the ledger's root id
 * @param revision the revision it holds
 * @param updatedAt that revision's commit time
 * @param nextSequence sequence of the next event
 * @param segment segment of the journal position
 * @param offset byte offset of the journal position
 * @param state the state at that revision
 * @param stateVersion the state version of {@code state}
 */
record Checkpoint(String root, long revision, Instant updatedAt, long nextSequence,
    long segment, long offset, JsonNode state, int stateVersion) {
  static final int FORMAT = 2;
  /** Reads one field's value from a parser that goes on past it. */
  private static final ObjectReader FIELD_READER = LedgerJson.mapper().reader()
      .without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  /** This checkpoint as indented JSON (see the class comment). */
  byte[] encode() {
    return LedgerJson.pretty(tree());
  }

  /**
   * This checkpoint as compact JSON with sorted keys and a trailing newline: the bytes of
   * {@link LedgerJson#canonical}, written by {@link CanonicalWriter} where it takes the
   * state's node kinds, else by Jackson.
   */
  byte[] encodeCompact() {
    ObjectNode tree = tree();
    CanonicalWriter out = new CanonicalWriter(4096);
    if (out.tree(tree, 0)) {
      out.raw('\n');
      return java.util.Arrays.copyOf(out.array(), out.size());
    }
    byte[] body = LedgerJson.canonical(tree);
    byte[] line = java.util.Arrays.copyOf(body, body.length + 1);
    line[body.length] = '\n';
    return line;
  }

  /**
   * This checkpoint as {@link #encodeCompact} writes it, with its state given as canonical
   * JSON ({@code state}, which this record's own state field does not hold): the header's
   * members around the state's bytes, copied as they are. The bytes equal
   * {@code encodeCompact()} of the same checkpoint with the state's tree when the state's bytes
   * are that tree's canonical JSON.
   */
  byte[] encodeCompact(byte[] stateBytes) {
    CanonicalWriter out = new CanonicalWriter(stateBytes.length + 256);
    out.raw(ascii("{\"format\":"));
    out.number(FORMAT);
    out.raw(ascii(",\"journal\":{\"nextSequence\":"));
    out.number(nextSequence);
    out.raw(ascii(",\"offset\":"));
    out.number(offset);
    out.raw(ascii(",\"segment\":"));
    out.number(segment);
    out.raw(ascii("},\"revision\":"));
    out.number(revision);
    out.raw(ascii(",\"root\":"));
    out.string(root);
    out.raw(ascii(",\"state\":"));
    out.raw(stateBytes, 0, stateBytes.length);
    out.raw(ascii(",\"stateVersion\":"));
    out.number(stateVersion);
    out.raw(ascii(",\"updatedAt\":"));
    out.string(JsonFields.instantText(updatedAt));
    out.raw(ascii("}\n"));
    return out.size() == out.array().length ? out.array()
        : java.util.Arrays.copyOf(out.array(), out.size());
  }

  private static byte[] ascii(String text) {
    return text.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  }

  private ObjectNode tree() {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("format", FORMAT);
    ObjectNode journal = node.putObject("journal");
    journal.put("nextSequence", nextSequence);
    journal.put("offset", offset);
    journal.put("segment", segment);
    node.put("revision", revision);
    node.put("root", root);
    node.set("state", state);
    node.put("stateVersion", stateVersion);
    node.put("updatedAt", JsonFields.instantText(updatedAt));
    return node;
  }

  /**
   * Reads the checkpoint of {@code root}, or null if there is none yet.
   *
   * @throws CorruptLedgerException if the file exists but is not a valid checkpoint of root
   * @throws UnsupportedFormatException if it has a newer format
   */
  static Checkpoint read(Path file, String root, long maxBytes) {
    return read(file, root, maxBytes, false);
  }

  /**
   * Reads the checkpoint of {@code root} without its state: the same checks as
   * {@link #read(Path, String, long)}, but the {@code state} field is only tokenized (to find
   * its end and check it is JSON), never built into a tree. The result's state is null.
   *
   * @throws CorruptLedgerException if the file exists but is not a valid checkpoint of root
   * @throws UnsupportedFormatException if it has a newer format
   */
  static Checkpoint readHeader(Path file, String root, long maxBytes) {
    return read(file, root, maxBytes, true);
  }

  private static Checkpoint read(Path file, String root, long maxBytes, boolean headerOnly) {
    JsonNode node = JsonFile.read(file, maxBytes, "checkpoint",
        headerOnly ? Checkpoint::parseHeader : LedgerJson::parse);
    if (node == null) {
      return null;
    }
    return fromTree(node, file, root, headerOnly);
  }

  /**
   * A checkpoint read with its state as bytes ({@link #readRaw}): the header as
   * {@link #readHeader} gives it, and where the state's JSON lies in the file's bytes.
   *
   * @param header the checkpoint without its state
   * @param bytes the whole file
   * @param stateOffset where the state's value starts in {@code bytes}
   * @param stateLength its length
   */
  record Raw(Checkpoint header, byte[] bytes, int stateOffset, int stateLength) {}

  /**
   * Reads the checkpoint of {@code root} whole into one array and finds its state's bytes, or
   * returns null if there is no checkpoint. The header is checked as
   * {@link #read(Path, String, long)} checks it (with {@link JsonScanner} for the structure);
   * the state's bytes are found, not checked (a compact checkpoint's state is not even stepped
   * over, see {@link #compactStateEnd}): the caller checks them as it reads them.
   *
   * @throws CorruptLedgerException if the file exists but is not a valid checkpoint of root,
   *     naming the file and, for malformed JSON, the offset
   * @throws UnsupportedFormatException if it has a newer format
   */
  static Raw readRaw(Path file, String root, long maxBytes) {
    byte[] bytes;
    try {
      bytes = SafeFiles.readBounded(file, maxBytes);
    } catch (java.nio.file.NoSuchFileException e) {
      return null;
    } catch (SafeFiles.FileTooLargeException e) {
      throw new CorruptLedgerException(file, -1, e.getMessage(), e);
    } catch (IOException e) {
      throw new dev.ledger.core.LedgerIOException("reading checkpoint", file, e);
    }
    if (bytes.length == 0) {
      throw new CorruptLedgerException(file, -1, "empty file");
    }
    ObjectNode header = JsonNodeFactory.instance.objectNode();
    int stateOffset = -1;
    int stateLength = 0;
    try {
      JsonScanner in = new JsonScanner(bytes, 0, bytes.length);
      if (in.peek() != '{') {
        // Not an object: refused below as the tree read refuses it.
        return new Raw(fromTree(LedgerJson.parse(bytes, 0, bytes.length), file, root, true),
            bytes, 0, 0);
      }
      if (in.beginObject()) {
        do {
          String name = in.name();
          in.peek();
          int start = in.position();
          if (header.has(name)) {
            throw in.error("duplicate member '" + name + "'");
          }
          int end = name.equals("state") ? compactStateEnd(bytes, start, header.get("format"))
              : -1;
          if (end >= 0) {
            // Not stepped over: the caller checks the state as it reads it.
            in.reset(end);
          } else {
            in.skipValue(1);
          }
          if (name.equals("state")) {
            stateOffset = start;
            stateLength = in.position() - start;
            header.set(name, NullNode.getInstance());
          } else {
            header.set(name, LedgerJson.parse(bytes, start, in.position() - start));
          }
        } while (in.nextMember());
      }
      if (!in.atEnd()) {
        throw in.error("not a single JSON object");
      }
    } catch (JsonScanner.MalformedJsonException e) {
      throw new CorruptLedgerException(file, e.offset(), "not JSON (" + e.getMessage() + ")", e);
    } catch (IOException e) {
      throw new CorruptLedgerException(file, -1, "not JSON (" + e.getClass().getSimpleName()
          + ")", e);
    }
    return new Raw(fromTree(header, file, root, true), bytes, stateOffset, stateLength);
  }

  /** What follows the state in a format 2 checkpoint with sorted, compact members. */
  private static final byte[] STATE_VERSION_MEMBER = ",\"stateVersion\":".getBytes(
      java.nio.charset.StandardCharsets.US_ASCII);

  /**
   * Where the state that starts at {@code start} ends, found from the end of the file without
   * stepping over the state: in a format 2 checkpoint written compact with sorted members
   * ({@link #encodeCompact}) only {@code stateVersion} and {@code updatedAt} follow it, so it
   * ends at the last {@code ,"stateVersion":} of the file's last bytes; the members from there
   * are then read and checked as any other. Returns -1 where that does not hold (format 1,
   * an indented file), and the state is stepped over instead.
   */
  private static int compactStateEnd(byte[] bytes, int start, JsonNode format) {
    if (format == null || !format.isIntegralNumber() || format.longValue() != FORMAT) {
      return -1;
    }
    int from = Math.max(start, bytes.length - 256);
    for (int k = bytes.length - STATE_VERSION_MEMBER.length; k >= from; k--) {
      if (java.util.Arrays.equals(bytes, k, k + STATE_VERSION_MEMBER.length,
          STATE_VERSION_MEMBER, 0, STATE_VERSION_MEMBER.length)) {
        return k;
      }
    }
    return -1;
  }

  private static Checkpoint fromTree(JsonNode node, Path file, String root, boolean headerOnly) {
    try {
      long format = JsonFile.format(node, file, "checkpoint format", FORMAT);
      JsonNode journal = node.get("journal");
      if (journal == null || !journal.isObject()) {
        throw new IllegalArgumentException("field 'journal' must be an object");
      }
      JsonFile.requireRoot(node, root);
      JsonNode state = node.get("state");
      if (state == null) {
        throw new IllegalArgumentException("field 'state' is missing");
      }
      JsonNode updated = node.get("updatedAt");
      if (updated == null || !updated.isTextual()) {
        throw new IllegalArgumentException("field 'updatedAt' must be a string");
      }
      long stateVersion = format == 1 ? 0 : integer(node, "stateVersion");
      if (stateVersion < 0 || stateVersion > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("field 'stateVersion' out of range: " + stateVersion);
      }
      Checkpoint checkpoint = new Checkpoint(root, integer(node, "revision"),
          JsonFields.instant(updated.textValue(), "updatedAt"), integer(journal, "nextSequence"),
          integer(journal, "segment"), integer(journal, "offset"), headerOnly ? null : state,
          (int) stateVersion);
      if (checkpoint.revision < 1 || checkpoint.nextSequence < 1 || checkpoint.segment < 1
          || checkpoint.segment > checkpoint.revision + 1 || checkpoint.offset < 0) {
        throw new IllegalArgumentException("inconsistent revision or journal position");
      }
      return checkpoint;
    } catch (IllegalArgumentException e) {
      throw new CorruptLedgerException(file, -1, "invalid checkpoint: " + e.getMessage(), e);
    }
  }

  /**
   * The top-level fields of a checkpoint as a tree, with a {@code null} stand-in for the
   * state: the state's tokens are read and skipped. Same parser settings as
   * {@link LedgerJson#parse} (duplicate keys, depth bound, no trailing tokens).
   */
  private static JsonNode parseHeader(java.io.InputStream in) throws IOException {
    ObjectMapper mapper = LedgerJson.mapper();
    try (JsonParser parser = mapper.createParser(in)) {
      JsonToken first = parser.nextToken();
      if (first == null) {
        throw new JsonParseException(parser, "no JSON value");
      }
      if (first != JsonToken.START_OBJECT) {
        // Not an object: the value as it is, which the caller refuses as not an object.
        JsonNode value = FIELD_READER.readTree(parser);
        if (parser.nextToken() != null) {
          throw new JsonParseException(parser, "not a single JSON value");
        }
        return value;
      }
      ObjectNode node = JsonNodeFactory.instance.objectNode();
      JsonToken token;
      while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
        String name = parser.currentName();
        parser.nextToken();
        if (name.equals("state")) {
          parser.skipChildren();
          node.set(name, NullNode.getInstance());
        } else {
          node.set(name, FIELD_READER.readTree(parser));
        }
      }
      if (token != JsonToken.END_OBJECT || parser.nextToken() != null) {
        throw new JsonParseException(parser, "not a single JSON object");
      }
      return node;
    }
  }
}
