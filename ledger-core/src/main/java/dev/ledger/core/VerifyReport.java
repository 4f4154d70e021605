package dev.ledger.core;

import com.google.common.base.Preconditions;
import java.nio.file.Path;
import java.util.List;

/**
 * What a store's {@code verify()} found: the counts of what it read, and every finding, each
 * naming the ledger, the file, the byte offset and what is wrong. A value: building it
 * changed nothing on disk.
 *
 * <p>A finding is either <b>damage</b> (the store holds something it never writes: a bad
 * checksum before the journal's tail, a gap, a checkpoint that disagrees with the journal, a
 * command index entry that points at the wrong commit, a bad marker) or a <b>note</b>
 * (something a crash or a writer in progress leaves, which the next writer settles: a torn
 * tail, a leftover temp file). {@link #clean()} is true when there is no damage.
 *
 * @param ledgers ledgers verified
 * @param segments journal segments read
 * @param records journal records whose checksum held
 * @param events events in those records
 * @param bytes journal bytes read
 * @param findings damage and notes, in the order found (ledgers in root id order)
 */
public record VerifyReport(int ledgers, long segments, long records, long events, long bytes,
    List<Finding> findings) {

  /**
   * Validates the counts and copies the findings.
   *
   * @param ledgers ledgers verified
   * @param segments journal segments read
   * @param records valid journal records
   * @param events events in them
   * @param bytes journal bytes read
   * @param findings the findings
   * @throws IllegalArgumentException if a count is negative
   * @throws NullPointerException if {@code findings} or one of them is null
   */
  public VerifyReport {
    Preconditions.checkArgument(ledgers >= 0 && segments >= 0 && records >= 0 && events >= 0
        && bytes >= 0, "negative count: ledgers %s segments %s records %s events %s bytes %s",
        ledgers, segments, records, events, bytes);
    findings = List.copyOf(Preconditions.checkNotNull(findings, "findings"));
  }

  /**
   * Whether no damage was found (notes may be present).
   *
   * @return true if no finding is damage
   */
  public boolean clean() {
    return damage().isEmpty();
  }

  /**
   * The findings that are damage.
   *
   * @return the damage, in the order found
   */
  public List<Finding> damage() {
    return findings.stream().filter(f -> f.kind().damage()).toList();
  }

  /**
   * The findings that are notes: what a crash or a writer in progress leaves.
   *
   * @return the notes, in the order found
   */
  public List<Finding> notes() {
    return findings.stream().filter(f -> !f.kind().damage()).toList();
  }

  /** What a finding is about. Each constant says whether it is damage or a note. */
  public enum Kind {
    /** {@code store.json} is missing, unparsable, not a store marker, or of a newer format. */
    BAD_STORE_MARKER(true),
    /** A journal line whose frame or checksum does not hold, before the journal's tail. */
    BAD_CHECKSUM(true),
    /** A line whose checksum holds but which is not a valid record (or is of a newer format). */
    BAD_RECORD(true),
    /** Zero bytes, an incomplete or an over-long line with valid data after it. */
    BAD_LINE(true),
    /** A record of another ledger. */
    WRONG_ROOT(true),
    /** A record whose revision is not the previous one's plus one. */
    REVISION_GAP(true),
    /** A record whose first sequence does not follow the previous record's events. */
    SEQUENCE_GAP(true),
    /** A segment whose name is not the revision of its first record. */
    SEGMENT_MISNAMED(true),
    /** A segment the journal needs is absent (the next one present is named). */
    MISSING_SEGMENT(true),
    /** {@code retention.json} does not parse, is not this ledger's, or is of a newer format. */
    BAD_RETENTION_MARKER(true),
    /**
     * A segment before the first revision {@code retention.json} keeps: an interrupted
     * retention left it; nothing reads it, and the next retention removes it.
     */
    RETAINED_LEFTOVER(false),
    /** A record that patches a state when no state precedes it, or whose patch fails. */
    BAD_STATE_CHANGE(true),
    /** A command id recorded by two commits. */
    DUPLICATE_COMMAND(true),
    /** {@code state.json} does not parse, is not a checkpoint of this ledger, or is newer. */
    BAD_CHECKPOINT(true),
    /**
     * {@code state.json} disagrees with the state folded from the journal at its revision
     * (state, state version, time, sequence or journal position), or the journal never
     * reaches its revision.
     */
    CHECKPOINT_MISMATCH(true),
    /** A command index entry that does not parse or is of a newer format. */
    BAD_COMMAND_ENTRY(true),
    /** A command index entry that points at a commit that does not carry its command. */
    COMMAND_ENTRY_MISMATCH(true),
    /** A command committed at or before the checkpoint's revision has no index entry. */
    COMMAND_ENTRY_MISSING(true),
    /** The file could not be read. */
    UNREADABLE(true),
    /** The journal ends with an incomplete or torn line: a crash left it; the next writer cuts it. */
    TORN_TAIL(false),
    /**
     * A command index entry that does not parse or does not match its commit, of a command
     * no checkpoint covers yet: a checkpoint being written, or damage that the next
     * checkpoint rewrites.
     */
    UNSETTLED_COMMAND_ENTRY(false),
    /** A temp file a crashed checkpoint left; the next writer removes it. */
    LEFTOVER_TEMP_FILE(false),
    /** A file or directory the store does not write; left alone. */
    UNKNOWN_FILE(false);

    private final boolean damage;

    Kind(boolean damage) {
      this.damage = damage;
    }

    /**
     * Whether findings of this kind are damage rather than notes.
     *
     * @return true for damage
     */
    public boolean damage() {
      return damage;
    }
  }

  /**
   * One finding.
   *
   * @param kind what it is about
   * @param rootId the ledger, or null for a store-wide finding
   * @param file the file concerned
   * @param offset the byte offset in {@code file}, or -1 when the whole file is concerned
   * @param detail what is wrong, in words
   * @param expected the expected value where there is one, else null
   * @param actual the value found where there is one, else null
   */
  public record Finding(Kind kind, String rootId, Path file, long offset, String detail,
      String expected, String actual) {
    /**
     * Validates the required fields.
     *
     * @param kind what it is about
     * @param rootId the ledger, or null
     * @param file the file
     * @param offset the offset, or -1
     * @param detail what is wrong
     * @param expected the expected value, or null
     * @param actual the value found, or null
     * @throws NullPointerException if {@code kind}, {@code file} or {@code detail} is null
     * @throws IllegalArgumentException if {@code offset} is below -1
     */
    public Finding {
      Preconditions.checkNotNull(kind, "kind");
      Preconditions.checkNotNull(file, "file");
      Preconditions.checkNotNull(detail, "detail");
      Preconditions.checkArgument(offset >= -1, "offset %s", offset);
    }

    @Override
    public String toString() {
      return (kind.damage() ? "damage " : "note ") + kind + (rootId == null ? ""
          : " in ledger '" + rootId + "'") + ": " + file + (offset >= 0 ? " at offset "
          + offset : "") + ": " + detail + (expected == null && actual == null ? ""
          : " (expected " + expected + ", actual " + actual + ")");
    }
  }
}
