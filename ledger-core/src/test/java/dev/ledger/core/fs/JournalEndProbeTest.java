package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link JournalEndProbe} on hand-made segments: each way a commit can follow a mark (a record
 * in the preallocated space, an append, a roll, a replaced file) is seen, with a kept channel
 * and without one.
 */
class JournalEndProbeTest {
  private static final byte[] RECORDS = "{\"r\":1}\n{\"r\":2}\n".getBytes(StandardCharsets.UTF_8);
  /** Just after revision 2, in segment 1. */
  private static final PatchRecords.Mark MARK =
      new PatchRecords.Mark(2, 3, 1, RECORDS.length);

  @TempDir
  Path dir;

  private JournalFiles journal;
  private JournalEndProbe probe;

  @BeforeEach
  void setUp() throws IOException {
    Files.createDirectories(dir.resolve("journal"));
    journal = new JournalFiles(dir.resolve("journal"), "probed", null);
    probe = new JournalEndProbe(journal);
  }

  @AfterEach
  void tearDown() {
    probe.release();
  }

  private void writeSegment(long base, byte[] data, int zeros) throws IOException {
    ByteBuffer bytes = ByteBuffer.allocate(data.length + zeros).put(data);
    Files.write(journal.segment(base), bytes.array());
  }

  /** Writes {@code text} at {@code offset} of segment {@code base}, as another writer would. */
  private void writeAt(long base, long offset, String text) throws IOException {
    try (FileChannel channel = FileChannel.open(journal.segment(base),
        StandardOpenOption.WRITE)) {
      channel.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), offset);
    }
  }

  @Test
  void aRecordWrittenIntoThePreallocatedSpaceIsSeenThroughTheKeptChannel() throws IOException {
    writeSegment(1, RECORDS, 4096);
    probe.keep();
    assertThat(probe.nothingAfter(MARK)).isTrue();
    assertThat(probe.nothingAfter(MARK)).isTrue();
    writeAt(1, RECORDS.length, "{\"r\":3}\n");
    assertThat(probe.nothingAfter(MARK)).isFalse();
  }

  @Test
  void aRecordWrittenIntoThePreallocatedSpaceIsSeenWithoutAKeptChannel() throws IOException {
    writeSegment(1, RECORDS, 4096);
    assertThat(probe.nothingAfter(MARK)).isTrue();
    writeAt(1, RECORDS.length, "{\"r\":3}\n");
    assertThat(probe.nothingAfter(MARK)).isFalse();
  }

  @Test
  void anAppendAfterAFileThatEndedAtTheMarkIsSeen() throws IOException {
    writeSegment(1, RECORDS, 0);
    probe.keep();
    assertThat(probe.nothingAfter(MARK)).isTrue();
    writeAt(1, RECORDS.length, "{\"r\":3}\n");
    assertThat(probe.nothingAfter(MARK)).isFalse();
  }

  @Test
  void aRollAfterTheMarkIsSeen() throws IOException {
    // A writer that rolls cuts the zeros first, then creates the segment named after the
    // revision it writes: here revision 3, just after the mark.
    writeSegment(1, RECORDS, 4096);
    probe.keep();
    assertThat(probe.nothingAfter(MARK)).isTrue();
    try (FileChannel channel = FileChannel.open(journal.segment(1),
        StandardOpenOption.WRITE)) {
      channel.truncate(RECORDS.length);
    }
    assertThat(probe.nothingAfter(MARK)).isTrue();
    writeSegment(3, "{\"r\":3}\n".getBytes(StandardCharsets.UTF_8), 0);
    assertThat(probe.nothingAfter(MARK)).isFalse();
  }

  @Test
  void aMarkAtTheStartOfTheSegmentOfTheNextRevisionNeedsNoLookUp() throws IOException {
    writeSegment(3, new byte[0], 0);
    assertThat(probe.nothingAfter(new PatchRecords.Mark(2, 3, 3, 0))).isTrue();
    writeAt(3, 0, "{\"r\":3}\n");
    assertThat(probe.nothingAfter(new PatchRecords.Mark(2, 3, 3, 0))).isFalse();
  }

  @Test
  void aFileReplacedUnderTheKeptChannelIsReadAfresh() throws IOException {
    writeSegment(1, RECORDS, 4096);
    probe.keep();
    assertThat(probe.nothingAfter(MARK)).isTrue();
    // A ledger deleted and created again under the same name: the old file, still open in
    // the kept channel, has zeros at the mark; the new one a record.
    Path segment = journal.segment(1);
    Path moved = dir.resolve("moved.jsonl");
    Files.move(segment, moved);
    writeSegment(1, "{\"r\":1}\n{\"r\":2}\n{\"r\":3}\n".getBytes(StandardCharsets.UTF_8), 4096);
    assertThat(probe.nothingAfter(MARK)).isFalse();
    // And back to an ended file: the channel follows the name again.
    Files.delete(segment);
    Files.move(moved, segment);
    assertThat(probe.nothingAfter(MARK)).isTrue();
  }

  @Test
  void aFileCutBeforeTheMarkOrMissingIsNoAnswer() throws IOException {
    writeSegment(1, RECORDS, 4096);
    probe.keep();
    assertThat(probe.nothingAfter(MARK)).isTrue();
    try (FileChannel channel = FileChannel.open(journal.segment(1),
        StandardOpenOption.WRITE)) {
      channel.truncate(RECORDS.length - 1);
    }
    assertThat(probe.nothingAfter(MARK)).isFalse();
    Files.delete(journal.segment(1));
    assertThatThrownBy(() -> probe.nothingAfter(MARK)).isInstanceOf(NoSuchFileException.class);
  }

  @Test
  void afterReleaseChecksStillAnswerAndAKeepKeepsAChannelAgain() throws IOException {
    writeSegment(1, RECORDS, 4096);
    probe.keep();
    assertThat(probe.nothingAfter(MARK)).isTrue();
    probe.release();
    assertThat(probe.nothingAfter(MARK)).isTrue();
    writeAt(1, RECORDS.length, "{\"r\":3}\n");
    assertThat(probe.nothingAfter(MARK)).isFalse();
    probe.keep();
    PatchRecords.Mark next = new PatchRecords.Mark(3, 4, 1, RECORDS.length + 8);
    assertThat(probe.nothingAfter(next)).isTrue();
    writeAt(1, RECORDS.length + 8, "{\"r\":4}\n");
    assertThat(probe.nothingAfter(next)).isFalse();
  }
}
