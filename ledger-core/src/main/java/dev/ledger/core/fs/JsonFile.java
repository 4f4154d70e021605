package dev.ledger.core.fs;

import static dev.ledger.core.internal.json.JsonFields.integer;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.UnsupportedFormatException;
import dev.ledger.core.internal.io.SafeFiles;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The reading rules shared by the small JSON files a ledger keeps beside its journal
 * ({@code state.json}: {@link Checkpoint}; {@code retention.json}: {@link RetentionMarker}),
 * so that a damaged file of either reads as damaged in the same words: a missing file is
 * null; a file over the caller's bound, an empty file or one that is not JSON is a
 * {@link CorruptLedgerException} naming the file; a file that cannot be read is a
 * {@link LedgerIOException}. Each file's own format is documented in the class that owns it.
 */
final class JsonFile {
  private JsonFile() {}

  /** Builds a tree from a file's bytes, as they are read. */
  @FunctionalInterface
  interface Parse {
    /**
     * The tree of {@code in}'s JSON.
     *
     * @throws IOException a {@code JacksonException} or {@link LedgerJson.JsonParseFailure}
     *     if it is not JSON; any other if reading fails
     */
    JsonNode parse(InputStream in) throws IOException;
  }

  /**
   * The tree of {@code file}, parsed as it is read (a large file never sits in memory as
   * bytes and as a tree at once), or null if there is no file.
   *
   * @param what what the file is, for the I/O error's message ("checkpoint")
   * @throws CorruptLedgerException if it is larger than {@code maxBytes}, empty or not JSON
   * @throws LedgerIOException if it cannot be read
   */
  static JsonNode read(Path file, long maxBytes, String what, Parse parse) {
    long[] size = new long[1];
    InputStream in;
    try {
      in = SafeFiles.openBounded(file, maxBytes, size);
    } catch (NoSuchFileException e) {
      return null;
    } catch (SafeFiles.FileTooLargeException e) {
      throw new CorruptLedgerException(file, -1, e.getMessage(), e);
    } catch (IOException e) {
      throw new LedgerIOException("reading " + what, file, e);
    }
    try (in) {
      return parse.parse(in);
    } catch (com.fasterxml.jackson.core.JacksonException | LedgerJson.JsonParseFailure
        | java.io.CharConversionException e) {
      throw new CorruptLedgerException(file, -1, size[0] == 0 ? "empty file"
          : "not JSON (" + e.getClass().getSimpleName() + ")", e);
    } catch (IOException e) {
      throw new LedgerIOException("reading " + what, file, e);
    }
  }

  /**
   * The {@code format} of a file's top-level object, checked: at least 1 and at most
   * {@code newest}.
   *
   * @param what the format's name for the refusal of a newer one ("checkpoint format")
   * @throws IllegalArgumentException if the tree is not an object or the format is missing,
   *     not an integer or below 1 (the caller reports it as damage)
   * @throws UnsupportedFormatException if the format is newer than {@code newest}
   */
  static long format(JsonNode node, Path file, String what, int newest) {
    if (!node.isObject()) {
      throw new IllegalArgumentException("not a JSON object");
    }
    long format = integer(node, "format");
    if (format > newest) {
      throw new UnsupportedFormatException(file, what, format, newest);
    }
    if (format < 1) {
      throw new IllegalArgumentException("unknown format " + format);
    }
    return format;
  }

  /**
   * Checks that the file's {@code root} field names {@code root}.
   *
   * @throws IllegalArgumentException if it is missing, not a string or another root
   */
  static void requireRoot(JsonNode node, String root) {
    JsonNode rootNode = node.get("root");
    if (rootNode == null || !rootNode.isTextual() || !rootNode.textValue().equals(root)) {
      throw new IllegalArgumentException("field 'root' must be '" + root + "'");
    }
  }
}
