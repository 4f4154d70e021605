package dev.ledger.core.fs;

import static dev.ledger.core.internal.json.JsonFields.integer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.UnsupportedFormatException;
import dev.ledger.core.internal.io.SafeFiles;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Where each recorded command id's commit lives, so a retried command is found in O(1) for
 * the ledger's whole life, without scanning the journal.
 *
 * <pre>
 * commands/&lt;hex 0-2&gt;/&lt;hex 2-64&gt;.json      hex = the SHA-256 in the public id cmd_&lt;hex&gt;
 * {"digest":"&lt;command digest&gt;","format":1,"offset":5120,"revision":5,"segment":1}
 * </pre>
 * The digest is a copy of the one in the command's journal record (of the kind that record's
 * format defines); commands are compared against the record itself, never against this copy.
 * Entries are written at checkpoint time (not on the commit path), under the ledger's writer
 * lock, each to the temp file {@code commands/.entry.tmp}, forced and renamed over its name, so
 * that an entry is whole or absent (a writer that takes the lock removes a temp file a killed
 * one left, {@link #removeTemp}); then their directories are forced, and only then is
 * {@code state.json} replaced: so every command in a
 * checkpointed revision has a durable entry, and commands after the checkpoint are known from
 * the journal records a writer replays when it opens. An entry is idempotent (same content
 * each time it is written). An entry that already holds its content is only forced, never
 * truncated and rewritten: a writer whose view is older than the latest checkpoint writes
 * entries that checkpoint covers, and a crash between truncating and rewriting one would lose
 * it for good. So a crash mid-checkpoint leaves nothing wrong.
 */
final class CommandIndex {
  private static final Pattern PUBLIC_ID = Pattern.compile("cmd_[0-9a-f]{64}");

  /** Where a command's commit record is, and the digest of its content. */
  record Entry(String digest, long revision, long segment, long offset) {}

  private final Path dir;

  CommandIndex(Path dir) {
    this.dir = dir;
  }

  Path path(String publicId) {
    if (!PUBLIC_ID.matcher(publicId).matches()) {
      throw new IllegalArgumentException("not a public command id: " + publicId);
    }
    String hex = publicId.substring(4);
    return dir.resolve(hex.substring(0, 2)).resolve(hex.substring(2) + ".json");
  }

  /** The entry of {@code publicId}, or null if none was written. */
  Entry find(String publicId) {
    Path file = path(publicId);
    // The entry is read without following a link; the directories on the way are checked.
    SafeFiles.refuseLinksBelow(dir.getParent(), file.getParent());
    byte[] bytes;
    try {
      bytes = SafeFiles.readBounded(file, 4096);
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      throw new LedgerIOException("reading command index entry", file, e);
    }
    try {
      JsonNode node = LedgerJson.parse(bytes);
      long format = integer(node, "format");
      if (format > 1) {
        throw new UnsupportedFormatException(file, "command index format", format, 1);
      }
      JsonNode digest = node.get("digest");
      if (format != 1 || digest == null || !digest.isTextual()) {
        throw new IllegalArgumentException("field 'digest' must be a string");
      }
      return new Entry(digest.textValue(), integer(node, "revision"), integer(node, "segment"),
          integer(node, "offset"));
    } catch (IOException | IllegalArgumentException e) {
      throw new CorruptLedgerException(file, -1, "invalid command index entry: "
          + e.getMessage(), e);
    }
  }

  /**
   * Writes {@code entries} durably (with {@code sync}): each file (whole, by a rename), then
   * the directories.
   */
  void write(Map<String, Entry> entries, boolean sync) throws IOException {
    Set<Path> dirs = new LinkedHashSet<>();
    for (Map.Entry<String, Entry> item : entries.entrySet()) {
      Path file = path(item.getKey());
      SafeFiles.createDirectoriesBelow(dir.getParent(), file.getParent(), sync);
      byte[] content = encode(item.getValue());
      if (Arrays.equals(existing(file), content)) {
        // Written before, maybe by another writer whose state.json already covers it: opening
        // it truncated to rewrite it would leave it empty if this process died right then,
        // and no checkpoint would lead recovery back to the command's journal record.
        if (sync) {
          try (FileChannel channel = SafeFiles.open(file, Set.of(StandardOpenOption.WRITE))) {
            channel.force(true);
          }
        }
      } else {
        // Whole or not at all: the temp file, forced, then renamed over the name. Written in
        // place, a writer killed between creating the file and writing it left an empty
        // entry, which a command's retry read as a corrupt index.
        SafeFiles.replaceFile(temp(), file, content, sync);
      }
      dirs.add(file.getParent());
    }
    if (sync) {
      for (Path d : dirs) {
        SafeFiles.forceDirectory(d);
      }
    }
  }

  /** The one temp file entries are written through, by the holder of the writer lock. */
  private Path temp() {
    return dir.resolve(".entry.tmp");
  }

  /**
   * Removes the temp file a writer killed while writing an entry left behind; for a writer
   * that has just taken the lock (no other writer can be writing one).
   */
  void removeTemp() throws IOException {
    Files.deleteIfExists(temp());
  }

  /** The bytes of an entry's file. */
  static byte[] encode(Entry entry) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("digest", entry.digest());
    node.put("format", 1);
    node.put("offset", entry.offset());
    node.put("revision", entry.revision());
    node.put("segment", entry.segment());
    return LedgerJson.canonical(node);
  }

  /**
   * Writes the entry of {@code publicId} atomically (temp file, force, rename, directory
   * force) unless its file already holds exactly that content: for a repair, which replaces
   * entries that may be damaged.
   *
   * @return true if the file was written
   */
  boolean replace(String publicId, Entry entry, boolean sync) throws IOException {
    Path file = path(publicId);
    byte[] content = encode(entry);
    if (Arrays.equals(existing(file), content)) {
      return false;
    }
    SafeFiles.createDirectoriesBelow(dir.getParent(), file.getParent(), sync);
    SafeFiles.replace(file, content, sync);
    return true;
  }

  /** The bytes of {@code file}, or null if it does not exist or is larger than an entry. */
  private static byte[] existing(Path file) throws IOException {
    try {
      return SafeFiles.readBounded(file, 4096);
    } catch (NoSuchFileException | SafeFiles.FileTooLargeException e) {
      return null;
    }
  }
}
