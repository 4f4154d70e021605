package dev.ledger.core.fs;

import static dev.ledger.core.fs.VerifyFixture.OPTIONS;
import static dev.ledger.core.fs.VerifyFixture.commit;
import static dev.ledger.core.fs.VerifyFixture.commitAt;
import static dev.ledger.core.fs.VerifyFixture.frame;
import static dev.ledger.core.fs.VerifyFixture.ledgerDir;
import static dev.ledger.core.fs.VerifyFixture.lineStarts;
import static dev.ledger.core.fs.VerifyFixture.replaceLine;
import static dev.ledger.core.fs.VerifyFixture.segment;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.VerifyProgress;
import dev.ledger.core.VerifyReport.Finding;
import dev.ledger.core.VerifyReport.Kind;
import dev.ledger.core.VerifyReport;
import dev.ledger.core.fs.VerifyFixture.Counter;
import dev.ledger.core.internal.json.LedgerJson;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** What {@link FileLedgerStore#verify()} finds, one kind of damage at a time. */
@ExtendWith(SeedExtension.class)
class FileLedgerVerifyTest {
  @TempDir
  Path dir;

  private VerifyReport verify() {
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(dir)) {
      return store.verify();
    }
  }

  private static List<Kind> kinds(VerifyReport report) {
    return report.damage().stream().map(Finding::kind).toList();
  }

  private Path segment1() {
    return segment(dir, "root-1", 1);
  }

  @Test
  void anIntactStoreIsCleanAndCounted() {
    LedgerOptionsFor rolls = new LedgerOptionsFor();
    commit(dir, rolls.options, "root-1", 60);
    commit(dir, rolls.options, "root-2", 3);
    List<VerifyProgress> seen = new ArrayList<>();
    VerifyReport report;
    try (FileLedgerStore store = FileLedgerStore.open(dir, rolls.options)) {
      report = store.verify(seen::add);
    }
    assertThat(report.findings()).isEmpty();
    assertThat(report.clean()).isTrue();
    assertThat(report.ledgers()).isEqualTo(2);
    assertThat(report.records()).isEqualTo(63);
    assertThat(report.events()).isEqualTo(63);
    assertThat(report.segments()).isGreaterThan(2);
    assertThat(report.bytes()).isEqualTo(journalBytes("root-1") + journalBytes("root-2"));
    VerifyProgress last = seen.get(seen.size() - 1);
    assertThat(last.rootId()).isEqualTo("root-2");
    assertThat(last.ledger()).isEqualTo(1);
    assertThat(last.ledgers()).isEqualTo(2);
    assertThat(last.bytesDone()).isEqualTo(last.bytesTotal()).isEqualTo(journalBytes("root-2"));
  }

  /** Small segments, so that a journal has several. */
  private static final class LedgerOptionsFor {
    final dev.ledger.core.LedgerOptions options = OPTIONS.withSegmentBytes(4096);
  }

  private long journalBytes(String root) {
    try (var files = Files.list(ledgerDir(dir, root).resolve("journal"))) {
      return files.mapToLong(p -> p.toFile().length()).sum();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void aFlippedBitInAnEarlyRecordIsFoundWhileLoadStillWorks(TestSeed seed) throws IOException {
    String context = seed.toString();
    Random random = seed.random();
    commit(dir, OPTIONS, "root-1", 20);
    List<Long> starts = lineStarts(segment1());
    int line = 1 + random.nextInt(5); // an early record, long before the checkpoint
    long from = starts.get(line);
    long to = starts.get(line + 1) - 1; // the newline
    byte[] bytes = Files.readAllBytes(segment1());
    int at;
    byte flipped;
    do {
      at = (int) (from + random.nextInt((int) (to - from)));
      flipped = (byte) (bytes[at] ^ (1 << random.nextInt(8)));
    } while (flipped == '\n' || flipped == 0);
    bytes[at] = flipped;
    Files.write(segment1(), bytes);

    try (FileLedgerStore store = FileLedgerStore.open(dir, OPTIONS)) {
      assertThat(store.ledger("root-1", Counter.class).load().revision()).as(context)
          .isEqualTo(20);
    }
    VerifyReport report = verify();
    assertThat(report.damage()).as(context).hasSize(1);
    Finding f = report.damage().get(0);
    assertThat(f.kind()).as(context).isIn(Kind.BAD_CHECKSUM);
    assertThat(f.file()).as(context).isEqualTo(segment1());
    assertThat(f.offset()).as(context).isEqualTo(from);
    assertThat(f.rootId()).isEqualTo("root-1");
    assertThat(report.records()).as(context).isEqualTo(19);
  }

  @Test
  void aMissingSegmentIsNamed() throws IOException {
    dev.ledger.core.LedgerOptions small = OPTIONS.withSegmentBytes(4096);
    commit(dir, small, "root-1", 60);
    List<Long> bases;
    try (var files = Files.list(ledgerDir(dir, "root-1").resolve("journal"))) {
      bases = files.map(p -> Long.parseLong(p.getFileName().toString().substring(0, 20)))
          .sorted().toList();
    }
    assertThat(bases.size()).isGreaterThanOrEqualTo(3);
    Path missing = segment(dir, "root-1", bases.get(1));
    Files.delete(missing);
    VerifyReport report = verify();
    assertThat(kinds(report)).containsExactly(Kind.MISSING_SEGMENT);
    Finding f = report.damage().get(0);
    assertThat(f.file()).isEqualTo(missing);
    assertThat(f.expected()).isEqualTo(missing.getFileName().toString());
    assertThat(f.actual()).isEqualTo(JournalFiles.name(bases.get(2)));
  }

  @Test
  void aRemovedRecordIsARevisionGap() throws IOException {
    commit(dir, OPTIONS, "root-1", 10);
    long at = lineStarts(segment1()).get(3);
    replaceLine(segment1(), at, new byte[0]);
    VerifyReport report = verify();
    assertThat(kinds(report)).startsWith(Kind.REVISION_GAP);
    Finding f = report.damage().get(0);
    assertThat(f.offset()).isEqualTo(at);
    assertThat(f.expected()).isEqualTo("4");
    assertThat(f.actual()).isEqualTo("5");
    // the checkpoint's journal position no longer matches what was folded
    assertThat(kinds(report)).contains(Kind.CHECKPOINT_MISMATCH);
  }

  @Test
  void aRecordWhoseSequencesSkipIsASequenceGap() throws IOException {
    commit(dir, OPTIONS, "root-1", 10);
    long at = lineStarts(segment1()).get(3); // revision 4, sequence 4
    ObjectNode commit = commitAt(segment1(), at);
    commit.put("firstSequence", 5);
    ((ObjectNode) ((ArrayNode) commit.get("events")).get(0)).put("sequence", 5);
    replaceLine(segment1(), at, frame(commit));
    VerifyReport report = verify();
    Finding f = report.damage().get(0);
    assertThat(f.kind()).isEqualTo(Kind.SEQUENCE_GAP);
    assertThat(f.offset()).isEqualTo(at);
    assertThat(f.expected()).isEqualTo("4");
    assertThat(f.actual()).isEqualTo("5");
  }

  @Test
  void aCheckpointThatDisagreesWithTheJournalIsFound() throws IOException {
    commit(dir, OPTIONS, "root-1", 10);
    Path stateFile = ledgerDir(dir, "root-1").resolve("state.json");
    ObjectNode checkpoint = (ObjectNode) LedgerJson.parse(Files.readAllBytes(stateFile));
    ((ObjectNode) checkpoint.get("state")).put("value", 99);
    Files.write(stateFile, LedgerJson.pretty(checkpoint));
    VerifyReport report = verify();
    assertThat(kinds(report)).containsExactly(Kind.CHECKPOINT_MISMATCH);
    assertThat(report.damage().get(0).file()).isEqualTo(stateFile);
    assertThat(report.damage().get(0).detail()).contains("'state'", "revision 10");

    ((ObjectNode) checkpoint.get("state")).put("value", 10);
    ((ObjectNode) checkpoint.get("journal")).put("nextSequence", 12);
    Files.write(stateFile, LedgerJson.pretty(checkpoint));
    report = verify();
    assertThat(kinds(report)).containsExactly(Kind.CHECKPOINT_MISMATCH);
    assertThat(report.damage().get(0).expected()).isEqualTo("11");
    assertThat(report.damage().get(0).actual()).isEqualTo("12");
  }

  @Test
  void commandIndexEntriesAreCheckedAgainstTheirCommits() throws IOException {
    commit(dir, OPTIONS, "root-1", 6);
    List<Path> entries = VerifyFixture.commandEntries(dir, "root-1");
    assertThat(entries).hasSize(6);
    // an entry pointing at the wrong revision (and record)
    ObjectNode entry = (ObjectNode) LedgerJson.parse(Files.readAllBytes(entries.get(0)));
    long revision = entry.get("revision").longValue();
    entry.put("revision", revision == 1 ? 2 : revision - 1);
    Files.write(entries.get(0), LedgerJson.canonical(entry));
    // an entry that does not parse, and one that is gone
    Files.writeString(entries.get(1), "{\"digest\":");
    Files.delete(entries.get(2));
    VerifyReport report = verify();
    assertThat(report.damage()).extracting(Finding::kind).containsExactlyInAnyOrder(
        Kind.COMMAND_ENTRY_MISMATCH, Kind.BAD_COMMAND_ENTRY, Kind.COMMAND_ENTRY_MISSING);
    Finding mismatch = report.damage().stream()
        .filter(f -> f.kind() == Kind.COMMAND_ENTRY_MISMATCH).findFirst().orElseThrow();
    assertThat(mismatch.file()).isEqualTo(entries.get(0));
    assertThat(mismatch.expected()).startsWith("revision " + revision + " ");
    Finding missing = report.damage().stream()
        .filter(f -> f.kind() == Kind.COMMAND_ENTRY_MISSING).findFirst().orElseThrow();
    assertThat(missing.file()).isEqualTo(entries.get(2));
  }

  @Test
  void anEntryOfACommandTheJournalDoesNotHoldIsFound() throws IOException {
    commit(dir, OPTIONS, "root-1", 3);
    Path entry = VerifyFixture.commandEntries(dir, "root-1").get(0);
    Path stray = entry.resolveSibling("0".repeat(62) + ".json");
    Files.copy(entry, stray);
    VerifyReport report = verify();
    assertThat(kinds(report)).containsExactly(Kind.COMMAND_ENTRY_MISMATCH);
    assertThat(report.damage().get(0).file()).isEqualTo(stray);
    assertThat(report.damage().get(0).actual()).startsWith("revision ");
  }

  @Test
  void badMarkersAreFound() throws IOException {
    commit(dir, OPTIONS, "root-1", 4);
    Path stateFile = ledgerDir(dir, "root-1").resolve("state.json");
    ObjectNode checkpoint = (ObjectNode) LedgerJson.parse(Files.readAllBytes(stateFile));
    checkpoint.put("format", 99);
    Files.write(stateFile, LedgerJson.pretty(checkpoint));
    long at = lineStarts(segment1()).get(1);
    ObjectNode record = commitAt(segment1(), at);
    record.put("format", 4);
    replaceLine(segment1(), at, frame(record));
    try (FileLedgerStore store = FileLedgerStore.open(dir, OPTIONS)) {
      Files.writeString(dir.resolve("store.json"), "{\"kind\":\"something else\"}");
      VerifyReport report = store.verify();
      assertThat(kinds(report)).containsExactlyInAnyOrder(Kind.BAD_STORE_MARKER,
          Kind.BAD_CHECKPOINT, Kind.BAD_RECORD);
      Finding record3 = report.damage().stream().filter(f -> f.kind() == Kind.BAD_RECORD)
          .findFirst().orElseThrow();
      assertThat(record3.offset()).isEqualTo(at);
      assertThat(record3.actual()).isEqualTo("4");
      assertThat(report.damage().get(0).rootId()).isNull();
    }
  }

  @Test
  void aTornTailIsANoteNotDamage() throws IOException {
    commit(dir, OPTIONS, "root-1", 5);
    Files.write(segment1(), "{\"crc32c\":\"0badf00d\",\"commit\":{\"comm"
        .getBytes(StandardCharsets.US_ASCII), StandardOpenOption.APPEND);
    long size = Files.size(segment1());
    VerifyReport report = verify();
    assertThat(report.clean()).isTrue();
    assertThat(report.notes()).extracting(Finding::kind).containsExactly(Kind.TORN_TAIL);
    assertThat(report.notes().get(0).offset()).isLessThan(size);
    assertThat(report.records()).isEqualTo(5);
  }

  @Test
  void verifyChangesNothingEvenWithDamagePresent() throws IOException {
    commit(dir, OPTIONS, "root-1", 12);
    commit(dir, OPTIONS, "root-2", 3);
    byte[] bytes = Files.readAllBytes(segment1());
    int at = (int) (lineStarts(segment1()).get(2) + 40);
    bytes[at] ^= 0x04;
    Files.write(segment1(), bytes);
    Files.write(segment1(), "{\"crc32c\":".getBytes(StandardCharsets.US_ASCII),
        StandardOpenOption.APPEND);
    Files.writeString(VerifyFixture.commandEntries(dir, "root-2").get(0), "garbage");
    Files.writeString(ledgerDir(dir, "root-2").resolve(".state.json.tmp"), "half");
    Map<String, String> before = VerifyFixture.tree(dir);
    VerifyReport writable;
    try (FileLedgerStore store = FileLedgerStore.open(dir, OPTIONS)) {
      writable = store.verify();
      store.verify("root-2", p -> { });
    }
    VerifyReport readOnly = verify();
    assertThat(VerifyFixture.tree(dir)).isEqualTo(before);
    assertThat(writable).isEqualTo(readOnly);
    assertThat(kinds(readOnly)).containsExactly(Kind.BAD_CHECKSUM, Kind.BAD_COMMAND_ENTRY);
    assertThat(readOnly.notes()).extracting(Finding::kind)
        .containsExactlyInAnyOrder(Kind.TORN_TAIL, Kind.LEFTOVER_TEMP_FILE);
  }

  @Test
  void verifyOfOneLedgerReportsOnlyIt() {
    commit(dir, OPTIONS, "root-1", 3);
    commit(dir, OPTIONS, "root-2", 2);
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(dir)) {
      VerifyReport report = store.verify("root-2", p -> { });
      assertThat(report.ledgers()).isEqualTo(1);
      assertThat(report.records()).isEqualTo(2);
      assertThat(report.clean()).isTrue();
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> store.verify("root-3", p -> { }))
          .isInstanceOf(dev.ledger.core.LedgerNotFoundException.class);
    }
  }
}
