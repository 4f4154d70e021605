package dev.ledger.core.fs;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Names of a ledger's journal segments.
 *
 * <pre>
 * journal/00000000000000000001.jsonl     first segment: records from revision 1
 * journal/00000000000000004097.jsonl     next segment: its first record has revision 4097
 * </pre>
 * A segment is named by the revision of its first record, zero-padded to 20 digits so that
 * names sort in journal order. The segment after one whose last record has revision R is
 * therefore named R + 1: a reader moves to the next segment without listing the directory.
 * Segments are append-only; only a torn tail of the last one is cut. Whole segments are
 * removed only by an explicit retention ({@code FileLedgerStore.applyRetention}), from the
 * first one on and never the last: {@code retention.json} ({@link RetentionMarker}) then names
 * the first segment kept, and is written before any segment before it is deleted. So the
 * journal is the segments from that one (or from segment 1 when there is no marker) on, each
 * named one past its predecessor's last revision; a segment below the marker's is debris of
 * an interrupted retention, read by nobody and removed by the next one.
 *
 * <p><b>Preallocated space.</b> A {@code SYNC} writer (a writer without forces appends, see
 * FileLedger) extends the last segment ahead of its records with zero bytes (to a page
 * boundary up to {@link #PREALLOCATE_BYTES} past the record that needs them, written one
 * page per write and forced with that record; a writer just opened or back from parking adds
 * none at its first extension, then one page, doubling from there: see
 * FileLedger.preallocate), so that a commit overwrites blocks that
 * already belong to the file: {@code fdatasync} then has only data to flush, not a new file
 * size. A record line never contains a zero byte, so zero bytes from a line start to the end
 * of the file are the end of the data. The zeros are cut when the segment is full (before
 * the next one is created), when the store is closed (a cleanly closed journal ends with a
 * newline), when the store parks an idle writer (see {@code OpenWriters}), and by a writer
 * that recovers the ledger and finds some (left by a crash or by another store). While a
 * writer has the segment open, or after a crash, tools that read the raw files must stop
 * at the first zero byte ({@code tr -d '\000' < segment | jq ...}).
 */
final class JournalFiles {
  /**
   * Zero bytes a writer keeps ahead of the last record: about 240 commits of the harness's
   * ~550-byte records between two extensions (each one costs a file-size update), and a
   * bound on what a reader that reaches the end of the data reads to check that only zeros
   * follow.
   */
  static final int PREALLOCATE_BYTES = 128 * 1024;

  private static final Pattern NAME = Pattern.compile("\\d{20}\\.jsonl");

  private final Path dir;
  private final String root;
  private final StoreLimits limits;

  JournalFiles(Path dir, String root, StoreLimits limits) {
    this.dir = dir;
    this.root = root;
    this.limits = limits;
  }

  Path dir() {
    return dir;
  }

  String root() {
    return root;
  }

  /** Longest line a reader accepts now (see {@link StoreLimits}). */
  int maxLine() {
    return limits.maxLine();
  }

  /**
   * Re-reads the recorded limits after a line longer than {@link #maxLine()} was met.
   *
   * @return true if they grew: read the line again
   */
  boolean refreshLimits() {
    return limits.refresh();
  }

  /** The segment whose first record has revision {@code base}. */
  Path segment(long base) {
    return dir.resolve(name(base));
  }

  /** {@code base} zero-padded to 20 digits, then {@code .jsonl}; on every commit's path. */
  static String name(long base) {
    if (base < 0) {
      return String.format("%020d.jsonl", base); // never a real segment; same name as before
    }
    String digits = Long.toString(base);
    return "0".repeat(20 - digits.length()) + digits + ".jsonl";
  }

  /** Bases of every segment present, ascending. */
  List<Long> bases() throws IOException {
    List<Long> bases = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path entry : entries) {
        String name = entry.getFileName().toString();
        if (NAME.matcher(name).matches()) {
          bases.add(Long.parseLong(name.substring(0, 20)));
        }
      }
    } catch (NoSuchFileException e) {
      return List.of();
    }
    Collections.sort(bases);
    return bases;
  }
}
