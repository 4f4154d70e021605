package dev.ledger.core.fs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.UnsupportedFormatException;
import dev.ledger.core.internal.io.FileLocks;
import dev.ledger.core.internal.io.SafeFiles;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The store marker, {@code <base>/store.json}: what the directory is, in which format, and
 * the size limits its writers used, so that every reader bounds its reads by them.
 *
 * <pre>
 * format 1: written by writers whose limits are at most the format-1 limits
 * (16 MiB states, 1 MiB event payloads), and by every version before limits were recorded
 * {
 *   "format" : 1,
 *   "kind" : "dev.ledger.store"
 * }
 *
 * format 2: a writer used a larger limit; both limits are recorded
 * {
 *   "format" : 2,
 *   "kind" : "dev.ledger.store",
 *   "limits" : {
 *     "maxEventPayloadBytes" : 1048576,
 *     "maxStateBytes" : 33554432
 *   }
 * }
 * </pre>
 * Pretty JSON, keys sorted, trailing newline. A marker's limits are the larger, component by
 * component, of the format-1 limits and of every writer's {@link LedgerOptions} limits; they
 * never shrink. A store whose writers stayed within the format-1 limits keeps a format-1
 * marker (readable by versions that predate format 2); one that needed more is marked format
 * 2, so that such a version refuses it ({@link UnsupportedFormatException}) instead of
 * reporting its larger records as damage.
 *
 * <p><b>Raising.</b> A writer whose limits exceed the recorded ones raises the marker when it
 * opens the store, before it can write anything: under the store lock ({@code <base>/.lock},
 * created only then), it reads the marker again, and if its limits still exceed it, writes
 * the larger of both to {@code .store.json.tmp}, forces it, renames it over
 * {@code store.json} and forces the directory, whatever the durability option (it happens
 * once per raise). The rename is the commit point: a crash leaves the old marker or the new
 * one, never a mixture, and at most a stale temp file that the next raise overwrites. The
 * lock serializes raises, so two writers raising different limits both find theirs recorded.
 * Because the raise is durable before any record it allows is written, every record and
 * checkpoint in the store fits the recorded limits.
 */
final class StoreMarker {
  static final String FILE = "store.json";
  static final String KIND = "dev.ledger.store";
  /** The newest format this library reads and writes. */
  static final int FORMAT = 2;
  /** The limits a format-1 marker stands for: what every writer used before format 2. */
  static final Limits FORMAT_1_LIMITS = new Limits(16 * 1024 * 1024, 1024 * 1024);
  /** Largest marker read: a marker is a few lines; anything larger is not one. */
  private static final int MAX_BYTES = 4096;

  /**
   * Size limits in bytes of a state's and of an event payload's canonical JSON.
   *
   * @param maxStateBytes largest state
   * @param maxEventPayloadBytes largest event payload
   */
  record Limits(int maxStateBytes, int maxEventPayloadBytes) {
    static Limits of(LedgerOptions options) {
      return new Limits(options.maxStateBytes(), options.maxEventPayloadBytes());
    }

    /** The larger of both, component by component. */
    Limits max(Limits other) {
      return new Limits(Math.max(maxStateBytes, other.maxStateBytes),
          Math.max(maxEventPayloadBytes, other.maxEventPayloadBytes));
    }

    /** Whether these limits are at least {@code other}'s in both components. */
    boolean covers(Limits other) {
      return maxStateBytes >= other.maxStateBytes
          && maxEventPayloadBytes >= other.maxEventPayloadBytes;
    }
  }

  private StoreMarker() {}

  /** The marker's bytes for {@code limits} (already at least the format-1 limits). */
  static byte[] encode(Limits limits) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    if (FORMAT_1_LIMITS.covers(limits)) {
      node.put("format", 1);
      node.put("kind", KIND);
    } else {
      node.put("format", 2);
      node.put("kind", KIND);
      ObjectNode recorded = node.putObject("limits");
      recorded.put("maxEventPayloadBytes", limits.maxEventPayloadBytes());
      recorded.put("maxStateBytes", limits.maxStateBytes());
    }
    return LedgerJson.pretty(node);
  }

  /**
   * Reads the recorded limits.
   *
   * @throws java.nio.file.NoSuchFileException if there is no marker
   * @throws CorruptLedgerException if the file is not a store marker
   * @throws UnsupportedFormatException if its format is newer than this library's
   * @throws dev.ledger.core.SymbolicLinkException if it is a symbolic link
   */
  static Limits read(Path marker) throws IOException {
    byte[] bytes;
    try {
      bytes = SafeFiles.readBounded(marker, MAX_BYTES);
    } catch (SafeFiles.FileTooLargeException e) {
      throw new CorruptLedgerException(marker, -1, "not a store marker: " + e.getMessage(), e);
    }
    return decode(marker, bytes);
  }

  static Limits decode(Path marker, byte[] bytes) {
    JsonNode node;
    try {
      node = LedgerJson.parse(bytes);
    } catch (IOException e) {
      throw new CorruptLedgerException(marker, -1, "not a store marker (not JSON)", e);
    }
    JsonNode kind = node.get("kind");
    JsonNode format = node.get("format");
    if (!node.isObject() || kind == null || !KIND.equals(kind.asText()) || format == null
        || !format.isIntegralNumber()) {
      throw new CorruptLedgerException(marker, -1, "not a store marker: expected kind '" + KIND
          + "' and an integer format");
    }
    if (format.longValue() > FORMAT) {
      throw new UnsupportedFormatException(marker, "store format", format.longValue(), FORMAT);
    }
    if (format.longValue() < 1) {
      throw new CorruptLedgerException(marker, -1, "invalid store format " + format);
    }
    if (format.longValue() == 1) {
      return FORMAT_1_LIMITS;
    }
    JsonNode limits = node.get("limits");
    if (limits == null || !limits.isObject()) {
      throw new CorruptLedgerException(marker, -1, "store format 2 needs an object 'limits'");
    }
    // Within what LedgerOptions accepts, and never below format 1's: a marker records the
    // larger of both.
    return new Limits(
        limit(marker, limits, "maxStateBytes", FORMAT_1_LIMITS.maxStateBytes(), 512 << 20),
        limit(marker, limits, "maxEventPayloadBytes", FORMAT_1_LIMITS.maxEventPayloadBytes(),
            64 << 20));
  }

  private static int limit(Path marker, JsonNode limits, String field, int min, int max) {
    JsonNode value = limits.get(field);
    if (value == null || !value.canConvertToInt() || !value.isIntegralNumber()
        || value.intValue() < min || value.intValue() > max) {
      throw new CorruptLedgerException(marker, -1, "limits." + field + " must be an integer"
          + " from " + min + " to " + max + ", found " + value);
    }
    return value.intValue();
  }

  /**
   * Raises the marker of the store at {@code base} to cover {@code wanted} (see the class
   * comment), unless it does already.
   *
   * @return the limits recorded afterwards
   */
  static Limits raise(Path base, Limits wanted, Duration lockTimeout) throws IOException {
    Path marker = base.resolve(FILE);
    try (FileLocks.Held lock = FileLocks.acquire(base.resolve(".lock"), lockTimeout)) {
      Limits recorded = read(marker);
      if (recorded.covers(wanted)) {
        return recorded; // a racing opener raised it meanwhile
      }
      Limits raised = recorded.max(wanted);
      lock.verify();
      SafeFiles.replace(marker, encode(raised), true);
      return raised;
    }
  }
}
