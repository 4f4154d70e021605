package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.UnsupportedFormatException;
import dev.ledger.testing.base.DirectorySnapshot;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Torn tails, damaged journals and malformed checkpoints, on the real file system. */
@ExtendWith(SeedExtension.class)
class FileLedgerDamageTest {
  private static final LedgerOptions OPTIONS = LedgerOptions.defaults()
      .withClock(Clock.fixed(Instant.parse("2026-11-29T12:00:00Z"), ZoneOffset.UTC))
      .withCheckpointInterval(1000);

  @TempDir
  Path dir;

  record Counter(int value) {}

  private Path ledgerDir() {
    return dir.resolve("ledgers").resolve("root-1");
  }

  private Path segment1() {
    return ledgerDir().resolve("journal").resolve("00000000000000000001.jsonl");
  }

  /**
   * Commits n more revisions, one event each, and abandons the store without closing it, as
   * a killed process would: no final checkpoint covers these records.
   */
  @SuppressWarnings("resource")
  private void commit(int n) {
    FileLedgerStore store = FileLedgerStore.open(dir, OPTIONS);
    Ledger<Counter> ledger = store.ledger("root-1", Counter.class);
    long revision = ledger.find().map(v -> v.revision()).orElse(0L);
    for (long i = revision; i < revision + n; i++) {
      ledger.commit(i, new Counter((int) i + 1), EventDraft.of("inc", Map.of("to", i + 1)));
    }
  }

  private static long loadRevision(Path dir) {
    try (FileLedgerStore store = FileLedgerStore.open(dir, OPTIONS)) {
      return store.ledger("root-1", Counter.class).load().revision();
    }
  }

  private static List<Long> sequences(Path dir) {
    try (FileLedgerStore store = FileLedgerStore.open(dir, OPTIONS);
        Stream<Event> events = store.ledger("root-1", Counter.class).replay(Cursor.START)) {
      return events.map(Event::sequence).toList();
    }
  }

  /** Every path of the store with each file's content (not times). */
  private DirectorySnapshot snapshot() throws IOException {
    return DirectorySnapshot.of(dir, DirectorySnapshot.Options.of(
        DirectorySnapshot.Aspect.CONTENT));
  }

  /** The segment's records: its bytes up to the preallocated zeros a writer left. */
  private byte[] data() throws IOException {
    byte[] bytes = Files.readAllBytes(segment1());
    int end = indexOf(bytes, (byte) 0, 0);
    return end < 0 ? bytes : Arrays.copyOf(bytes, end);
  }

  /** Writes {@code bytes} as the segment, followed by a writer's preallocated zeros if asked. */
  private void writeSegment(byte[] bytes, boolean padded) throws IOException {
    Files.write(segment1(), padded
        ? Arrays.copyOf(bytes, bytes.length + JournalFiles.PREALLOCATE_BYTES) : bytes);
  }

  @Test
  void tornTailIsInvisibleToReadersAndCutByTheNextWriter(TestSeed seed) throws IOException {
    Random random = seed.random();
    commit(5);
    byte[] intact = data();
    for (int round = 0; round < 24; round++) {
      String context = seed + " round " + round;
      byte[] garbage = new byte[1 + random.nextInt(1024)];
      random.nextBytes(garbage);
      if (round % 3 == 0) {
        // A whole page of zeros written at the end: preallocated space, not a torn record.
        Arrays.fill(garbage, (byte) 0);
      }
      for (int i = 0; i < garbage.length; i++) {
        if (garbage[i] == '\n') {
          garbage[i] = ' ';
        }
      }
      if (round % 3 != 0 && round % 2 == 0) {
        // The torn write's first bytes were lost: zeros, then the rest of it.
        Arrays.fill(garbage, 0, garbage.length / 2, (byte) 0);
      }
      byte[] before = data();
      byte[] torn = Arrays.copyOf(before, before.length + garbage.length);
      System.arraycopy(garbage, 0, torn, before.length, garbage.length);
      // Torn inside the preallocated space (zeros after it) or at the end of the file.
      writeSegment(torn, round % 4 < 2);
      assertThat(loadRevision(dir)).as(context).isEqualTo(5 + round);
      commit(1);
      byte[] after = data();
      assertThat(after).as("%s: earlier bytes kept", context).startsWith(before);
      assertThat(after.length).as(context).isGreaterThan(before.length);
      assertThat(after[after.length - 1]).as("%s: the new record ends the data", context)
          .isEqualTo((byte) '\n');
      assertThat(Files.readAllBytes(segment1())).as("%s: nothing but zeros after it", context)
          .isEqualTo(concat(after, new byte[(int) Files.size(segment1()) - after.length]));
    }
    assertThat(data()).startsWith(intact);
    assertThat(sequences(dir)).isEqualTo(java.util.stream.LongStream.rangeClosed(1, 29).boxed()
        .toList());
  }

  @Test
  void partialRecordAtTheTailIsCut() throws IOException {
    commit(3);
    byte[] bytes = data();
    int lastLineStart = lastLineStart(bytes);
    for (int cut = lastLineStart + 1; cut < bytes.length; cut += Math.max(1, (bytes.length
        - lastLineStart) / 7)) {
      writeSegment(Arrays.copyOf(bytes, cut), cut % 2 == 0);
      assertThat(loadRevision(dir)).as("cut at %s", cut).isEqualTo(2);
    }
    commit(1);
    assertThat(loadRevision(dir)).isEqualTo(3);
    assertThat(sequences(dir)).containsExactly(1L, 2L, 3L);
  }

  @ParameterizedTest(name = "followed by preallocated zeros: {0}")
  @ValueSource(booleans = {false, true})
  void completeLineWithBadChecksumAtTheTailIsTreatedAsTorn(boolean padded) throws IOException {
    commit(3);
    byte[] bytes = data();
    int at = bytes.length - 10;
    bytes[at] = (byte) (bytes[at] == 'a' ? 'b' : 'a');
    writeSegment(bytes, padded);
    assertThat(loadRevision(dir)).isEqualTo(2);
    commit(1);
    assertThat(sequences(dir)).containsExactly(1L, 2L, 3L);
  }

  @Test
  void zerosAtALineStartFollowedByRecordsAreDamageNotTheEnd() throws IOException {
    commit(5);
    byte[] bytes = data();
    int second = indexOf(bytes, (byte) '\n', 0) + 1;
    int third = indexOf(bytes, (byte) '\n', second) + 1;
    // The second record's bytes read back as zeros: a lost write in the middle of the journal.
    Arrays.fill(bytes, second, third, (byte) 0);
    writeSegment(bytes, true);
    assertDamageReportedAndNothingChanged(second, "zero bytes at offset " + second);
  }

  @Test
  void aWriterWithoutForcesAppendsWithoutZeros() throws IOException {
    FileLedgerStore store = FileLedgerStore.open(dir,
        OPTIONS.withDurability(dev.ledger.core.Durability.UNSAFE_NO_SYNC));
    Ledger<Counter> ledger = store.ledger("root-1", Counter.class);
    for (int i = 0; i < 5; i++) {
      ledger.commit(i, new Counter(i + 1));
    }
    byte[] bytes = Files.readAllBytes(segment1());
    assertThat(bytes).doesNotContain(0);
    assertThat(bytes[bytes.length - 1]).isEqualTo((byte) '\n');
    store.close();
    assertThat(loadRevision(dir)).isEqualTo(5);
  }

  @Test
  void writerPreallocatesZerosAndAClosedStoreEndsWithItsLastRecord() throws IOException {
    LedgerOptions small = OPTIONS.withSegmentBytes(64 * 1024);
    Path journal = ledgerDir().resolve("journal");
    try (FileLedgerStore store = FileLedgerStore.open(dir, small)) {
      Ledger<Counter> ledger = store.ledger("root-1", Counter.class);
      ledger.commit(0, new Counter(1));
      // A writer just opened adds no zeros at its first extension, then one page, and doubles
      // at each extension after that.
      assertThat(Files.size(segment1())).as("the first record alone").isEqualTo(data().length);
      ledger.commit(1, new Counter(2));
      long size = Files.size(segment1());
      byte[] bytes = data();
      assertThat(size).as("zeros to a page boundary a page past the second record").isEqualTo(
          (bytes.length + 4096 + 4095) / 4096 * 4096);
      for (int i = 2; i < 400; i++) {
        ledger.commit(i, new Counter(i + 1), EventDraft.of("inc", Map.of("pad", "x".repeat(400))));
      }
      try (Stream<Path> segments = Files.list(journal)) {
        List<Path> sorted = segments.sorted().toList();
        assertThat(sorted).hasSizeGreaterThan(1);
        for (Path segment : sorted.subList(0, sorted.size() - 1)) {
          byte[] full = Files.readAllBytes(segment);
          assertThat(full).as("%s: a full segment is trimmed", segment).doesNotContain(0);
          assertThat(full[full.length - 1]).isEqualTo((byte) '\n');
        }
        byte[] last = Files.readAllBytes(sorted.get(sorted.size() - 1));
        assertThat(last[last.length - 1]).as("the last segment has zeros ahead").isZero();
      }
      // Another store in this process reads through the zeros to the latest revision.
      try (FileLedgerStore other = FileLedgerStore.open(dir, small)) {
        assertThat(other.ledger("root-1", Counter.class).load().revision()).isEqualTo(400);
      }
    }
    try (Stream<Path> segments = Files.list(journal)) {
      for (Path segment : segments.toList()) {
        byte[] full = Files.readAllBytes(segment);
        assertThat(full).as("%s after close", segment).doesNotContain(0);
        assertThat(full[full.length - 1]).isEqualTo((byte) '\n');
      }
    }
    assertThat(loadRevision(dir)).isEqualTo(400);
  }

  @Test
  void damageBeforeTheTailIsReportedNotSkipped() throws IOException {
    commit(5);
    byte[] bytes = Files.readAllBytes(segment1());
    int secondLine = indexOf(bytes, (byte) '\n', 0) + 1;
    bytes[secondLine + 40] ^= 0x01;
    Files.write(segment1(), bytes);
    assertDamageReportedAndNothingChanged(secondLine, "valid record follows");
  }

  /**
   * Loading, committing at revision 5 and paging all refuse with the damage at
   * {@code offset} of the first segment, and no file changes.
   */
  private void assertDamageReportedAndNothingChanged(long offset, String message)
      throws IOException {
    DirectorySnapshot before = snapshot();
    try (FileLedgerStore store = FileLedgerStore.open(dir, OPTIONS)) {
      Ledger<Counter> ledger = store.ledger("root-1", Counter.class);
      assertThatThrownBy(ledger::load).isInstanceOfSatisfying(CorruptLedgerException.class, e -> {
        assertThat(e.path()).isEqualTo(segment1());
        assertThat(e.offset()).isEqualTo(offset);
      }).hasMessageContaining(message);
      assertThatThrownBy(() -> ledger.commit(5, new Counter(6)))
          .isInstanceOf(CorruptLedgerException.class);
      assertThatThrownBy(() -> ledger.events(Cursor.START, 100))
          .isInstanceOf(CorruptLedgerException.class);
    }
    assertThat(before.diff(snapshot())).isEmpty();
  }

  @Test
  void missingRecordInTheMiddleIsReported() throws IOException {
    commit(4);
    byte[] bytes = Files.readAllBytes(segment1());
    int second = indexOf(bytes, (byte) '\n', 0) + 1;
    int third = indexOf(bytes, (byte) '\n', second) + 1;
    byte[] without = new byte[bytes.length - (third - second)];
    System.arraycopy(bytes, 0, without, 0, second);
    System.arraycopy(bytes, third, without, second, bytes.length - third);
    Files.write(segment1(), without);
    assertThatThrownBy(() -> loadRevision(dir)).isInstanceOf(CorruptLedgerException.class)
        .hasMessageContaining("expected revision 2, found revision 3");
  }

  @Test
  void segmentRollKeepsTheJournalGaplessAcrossReopen() throws IOException {
    LedgerOptions small = OPTIONS.withSegmentBytes(4096).withCheckpointInterval(7);
    try (FileLedgerStore store = FileLedgerStore.open(dir, small)) {
      Ledger<Counter> ledger = store.ledger("root-1", Counter.class);
      for (int i = 0; i < 120; i++) {
        ledger.commit(i, new Counter(i + 1), EventDraft.of("inc", Map.of("pad", "x".repeat(200))));
      }
    }
    try (Stream<Path> segments = Files.list(ledgerDir().resolve("journal"))) {
      assertThat(segments.count()).isGreaterThan(3);
    }
    try (FileLedgerStore store = FileLedgerStore.open(dir, small)) {
      Ledger<Counter> ledger = store.ledger("root-1", Counter.class);
      assertThat(ledger.load().state().value()).isEqualTo(120);
      Cursor cursor = Cursor.START;
      long expected = 1;
      while (true) {
        var page = ledger.events(cursor, 7);
        for (Event e : page.events()) {
          assertThat(e.sequence()).isEqualTo(expected++);
        }
        cursor = page.nextCursor();
        if (!page.hasMore()) {
          break;
        }
      }
      assertThat(expected).isEqualTo(121);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"empty", "zeros", "truncated", "not-json", "array", "wrong-root",
      "missing-state", "bad-position", "beyond-end"})
  void malformedCheckpointIsReportedNeverReset(String variant) throws IOException {
    try (FileLedgerStore store = FileLedgerStore.open(dir, OPTIONS.withCheckpointInterval(2))) {
      Ledger<Counter> ledger = store.ledger("root-1", Counter.class);
      for (int i = 0; i < 4; i++) {
        ledger.commit(i, new Counter(i + 1));
      }
    }
    Path state = ledgerDir().resolve("state.json");
    String good = Files.readString(state);
    byte[] bad = switch (variant) {
      case "empty" -> new byte[0];
      case "zeros" -> new byte[4096];
      case "truncated" -> Arrays.copyOf(good.getBytes(StandardCharsets.UTF_8), good.length() / 2);
      case "not-json" -> "revision = 4\n".getBytes(StandardCharsets.UTF_8);
      case "array" -> "[1,2,3]".getBytes(StandardCharsets.UTF_8);
      case "wrong-root" -> good.replace("\"root-1\"", "\"root-2\"").getBytes(StandardCharsets.UTF_8);
      case "missing-state" -> good.replace("\"state\"", "\"stat\"").getBytes(StandardCharsets.UTF_8);
      case "bad-position" -> good.replaceAll("\"offset\" : \\d+", "\"offset\" : 7")
          .getBytes(StandardCharsets.UTF_8);
      case "beyond-end" -> good.replaceAll("\"offset\" : \\d+", "\"offset\" : 999999")
          .getBytes(StandardCharsets.UTF_8);
      default -> throw new IllegalArgumentException(variant);
    };
    Files.write(state, bad);
    DirectorySnapshot before = snapshot();
    try (FileLedgerStore store = FileLedgerStore.open(dir, OPTIONS)) {
      Ledger<Counter> ledger = store.ledger("root-1", Counter.class);
      assertThatThrownBy(ledger::load).as(variant).isInstanceOfSatisfying(
          CorruptLedgerException.class, e -> assertThat(e.path().getFileName().toString())
              .matches("state\\.json|\\d{20}\\.jsonl"));
      assertThatThrownBy(() -> ledger.commit(4, new Counter(5))).as(variant)
          .isInstanceOf(CorruptLedgerException.class);
    }
    assertThat(before.diff(snapshot())).isEmpty();
  }

  @Test
  void futureVersionCheckpointIsRefused() throws IOException {
    try (FileLedgerStore store = FileLedgerStore.open(dir, OPTIONS.withCheckpointInterval(1))) {
      store.ledger("root-1", Counter.class).commit(0, new Counter(1));
    }
    Path state = ledgerDir().resolve("state.json");
    Files.writeString(state, Files.readString(state).replace("\"format\" : 2", "\"format\" : 3"));
    try (FileLedgerStore store = FileLedgerStore.open(dir, OPTIONS)) {
      assertThatThrownBy(() -> store.ledger("root-1", Counter.class).load())
          .isInstanceOfSatisfying(UnsupportedFormatException.class, e -> {
            assertThat(e.found()).isEqualTo(3);
            assertThat(e.supported()).isEqualTo(2);
          }).hasMessageContaining("state.json");
    }
  }

  @Test
  void futureVersionJournalRecordIsRefused() throws IOException {
    commit(2);
    byte[] bytes = Files.readAllBytes(segment1());
    String text = new String(bytes, StandardCharsets.UTF_8);
    String[] lines = text.split("\n");
    // Re-frame the second record with format 4 and a correct checksum.
    String body = lines[1].substring(30, lines[1].length() - 1).replace("\"format\":2",
        "\"format\":4");
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(body.getBytes(StandardCharsets.UTF_8));
    String reframed = String.format("{\"crc32c\":\"%08x\",\"commit\":%s}", crc.getValue(), body);
    Files.writeString(segment1(), lines[0] + "\n" + reframed + "\n");
    assertThatThrownBy(() -> loadRevision(dir)).isInstanceOf(UnsupportedFormatException.class)
        .hasMessageContaining("journal record format");
  }

  @Test
  void futureVersionStoreIsRefused() throws IOException {
    FileLedgerStore.open(dir, OPTIONS).close();
    Path marker = dir.resolve("store.json");
    Files.writeString(marker, Files.readString(marker).replace("\"format\" : 1",
        "\"format\" : 3"));
    assertThatThrownBy(() -> FileLedgerStore.open(dir, OPTIONS))
        .isInstanceOf(UnsupportedFormatException.class).hasMessageContaining("store.json");
  }

  @Test
  void checkpointPlusJournalTailGivesTheLatestState() throws IOException {
    try (FileLedgerStore store = FileLedgerStore.open(dir, OPTIONS.withCheckpointInterval(3))) {
      Ledger<Counter> ledger = store.ledger("root-1", Counter.class);
      for (int i = 0; i < 10; i++) {
        ledger.commit(i, new Counter(i + 1));
      }
      // A second store instance reads from disk: checkpoint at 9, then record 10.
      try (FileLedgerStore other = FileLedgerStore.open(dir, OPTIONS)) {
        assertThat(other.ledger("root-1", Counter.class).load().revision()).isEqualTo(10);
        assertThat(other.ledger("root-1", Counter.class).load().state().value()).isEqualTo(10);
      }
    }
    assertThat(Files.readString(ledgerDir().resolve("state.json"))).contains("\"revision\" : 10");
  }

  @Test
  void filesAreOwnerOnly() throws IOException {
    try (FileLedgerStore store = FileLedgerStore.open(dir, OPTIONS)) {
      store.ledger("root-1", Counter.class).commit(0, new Counter(1),
          EventDraft.of("x", Map.of()).withCommandId("c"));
    }
    if (!dir.getFileSystem().supportedFileAttributeViews().contains("posix")) {
      return;
    }
    assertThat(java.nio.file.attribute.PosixFilePermissions.toString(
        Files.getPosixFilePermissions(segment1()))).isEqualTo("rw-------");
    assertThat(java.nio.file.attribute.PosixFilePermissions.toString(
        Files.getPosixFilePermissions(ledgerDir()))).isEqualTo("rwx------");
    assertThat(java.nio.file.attribute.PosixFilePermissions.toString(
        Files.getPosixFilePermissions(ledgerDir().resolve("state.json")))).isEqualTo("rw-------");
    try (Stream<Path> all = Files.walk(dir)) {
      all.forEach(p -> {
        try {
          assertThat(java.nio.file.attribute.PosixFilePermissions.toString(
              Files.getPosixFilePermissions(p))).as("%s", p)
              .isEqualTo(Files.isDirectory(p) && !p.equals(dir) ? "rwx------"
                  : Files.isDirectory(p) ? java.nio.file.attribute.PosixFilePermissions.toString(
                      Files.getPosixFilePermissions(p)) : "rw-------");
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] both = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, both, a.length, b.length);
    return both;
  }

  private static int lastLineStart(byte[] bytes) {
    int i = bytes.length - 2;
    while (i >= 0 && bytes[i] != '\n') {
      i--;
    }
    return i + 1;
  }

  private static int indexOf(byte[] bytes, byte b, int from) {
    for (int i = from; i < bytes.length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }
}
