package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.ImportResult;
import dev.ledger.core.InvalidExportException;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerExistsException;
import dev.ledger.core.LedgerNotFoundException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.ReadOnlyStoreException;
import dev.ledger.core.VerifyReport;
import dev.ledger.core.Versioned;
import dev.ledger.testing.base.DirectorySnapshot;
import dev.ledger.testing.base.MutableClock;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link FileLedgerStore#export} and {@link FileLedgerStore#importLedger}. */
class FileLedgerExportTest {
  private static final int COMMITS = 40;
  private static final String ROOT = "run-1";

  @TempDir
  Path dir;

  private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T12:00:00Z"));

  /** Small segments so a few commits span several; a checkpoint every 7 commits. */
  private LedgerOptions options() {
    return LedgerOptions.defaults().withClock(clock).withSegmentBytes(4096)
        .withCheckpointInterval(7);
  }

  /** A state whose long text makes a merge patch smaller than the whole state. */
  record Doc(String text, Map<String, Integer> counts) {
    Doc with(String key) {
      Map<String, Integer> next = new TreeMap<>(counts);
      next.merge(key, 1, Integer::sum);
      return new Doc(text, next);
    }
  }

  private static String command(int i) {
    return "cmd-" + i;
  }

  private static List<EventDraft> drafts(int i) {
    return List.of(EventDraft.of("step", Map.of("i", i)).withCommandId(command(i)),
        EventDraft.of("note", Map.of("text", "n" + i)).withCommandId(command(i))
            .withOperationId("op-" + i));
  }

  /** Commits {@link #COMMITS} revisions: the first with a whole state, the rest as patches. */
  private void fill(FileLedgerStore store) {
    Ledger<Doc> ledger = store.ledger(ROOT, Doc.class);
    Doc doc = new Doc("x".repeat(600), Map.of());
    for (int i = 1; i <= COMMITS; i++) {
      clock.advance(Duration.ofSeconds(1));
      doc = doc.with("k" + (i % 5));
      ledger.commit(i - 1, doc, drafts(i));
    }
  }

  private static byte[] export(FileLedgerStore store, String root) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    store.export(root, out);
    return out.toByteArray();
  }

  private static List<Event> events(Ledger<?> ledger) {
    try (Stream<Event> all = ledger.replay(Cursor.START)) {
      return all.toList();
    }
  }

  private static DirectorySnapshot snapshot(Path base) throws IOException {
    return DirectorySnapshot.of(base, DirectorySnapshot.Options.of(
        DirectorySnapshot.Aspect.CONTENT, DirectorySnapshot.Aspect.FILE_TIMES,
        DirectorySnapshot.Aspect.DIRECTORY_TIMES));
  }

  private static List<byte[]> lines(byte[] export) {
    List<byte[]> lines = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < export.length; i++) {
      if (export[i] == '\n') {
        lines.add(Arrays.copyOfRange(export, start, i + 1));
        start = i + 1;
      }
    }
    assertThat(start).as("the export ends with a newline").isEqualTo(export.length);
    return lines;
  }

  private static byte[] join(List<byte[]> lines) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    lines.forEach(out::writeBytes);
    return out.toByteArray();
  }

  private byte[] sourceExport() {
    try (FileLedgerStore source = FileLedgerStore.open(dir.resolve("source"), options())) {
      fill(source);
      return export(source, ROOT);
    }
  }

  @Test
  void roundTripRebuildsAnEquivalentLedger() throws IOException {
    Path sourceDir = dir.resolve("source");
    byte[] exported;
    Versioned<Doc> sourceState;
    List<Event> sourceEvents;
    try (FileLedgerStore source = FileLedgerStore.open(sourceDir, options())) {
      fill(source);
      exported = export(source, ROOT);
      sourceState = source.ledger(ROOT, Doc.class).load();
      sourceEvents = events(source.ledger(ROOT, Doc.class));
    }
    // The source is what the test claims: several segments and merge-patch records.
    try (Stream<Path> segments = Files.list(VerifyFixture.ledgerDir(sourceDir, ROOT)
        .resolve("journal"))) {
      assertThat(segments.count()).isGreaterThan(2);
    }
    List<byte[]> lines = lines(exported);
    assertThat(lines).hasSize(COMMITS + 1);
    String header = new String(lines.get(0), StandardCharsets.UTF_8);
    assertThat(header).contains("\"kind\":\"dev.ledger.export\"", "\"revisions\":" + COMMITS,
        "\"root\":\"run-1\"", "\"exportedAt\":\"" + clock.instant() + "\"");
    assertThat(lines.stream().skip(2).filter(l -> new String(l, StandardCharsets.UTF_8)
        .contains("\"patch\":"))).hasSize(COMMITS - 1);

    Path targetDir = dir.resolve("target");
    try (FileLedgerStore target = FileLedgerStore.open(targetDir, options())) {
      ImportResult result = target.importLedger(new ByteArrayInputStream(exported));
      assertThat(result).isEqualTo(new ImportResult(ROOT, COMMITS, 2L * COMMITS, COMMITS));
      VerifyReport report = target.verify();
      assertThat(report.damage()).isEmpty();
      assertThat(report.clean()).isTrue();
      assertThat(target.rootIds()).containsExactly(ROOT);
      // Exported again with the same clock, the rebuilt ledger gives the same bytes.
      assertThat(export(target, ROOT)).isEqualTo(exported);
    }
    try (FileLedgerStore target = FileLedgerStore.open(targetDir, options())) {
      Ledger<Doc> ledger = target.ledger(ROOT, Doc.class);
      assertThat(ledger.load()).isEqualTo(sourceState);
      assertThat(events(ledger)).isEqualTo(sourceEvents);
      for (int i = 1; i <= COMMITS; i++) {
        assertThat(ledger.command(command(i))).as(command(i)).get()
            .extracting(CommitResult::revision).isEqualTo((long) i);
        CommitResult retry = ledger.commit(COMMITS, sourceState.state(), drafts(i));
        assertThat(retry.replayed()).as(command(i)).isTrue();
        assertThat(retry.revision()).isEqualTo(i);
      }
      CommitResult next = ledger.commit(COMMITS, sourceState.state().with("after"),
          EventDraft.of("after", Map.of()));
      assertThat(next.revision()).isEqualTo(COMMITS + 1);
      assertThat(next.events().get(0).sequence()).isEqualTo(2L * COMMITS + 1);
      assertThat(target.verify().clean()).isTrue();
    }
  }

  @Test
  void exportOfAMissingLedgerIsRefused() {
    try (FileLedgerStore store = FileLedgerStore.open(dir, options())) {
      assertThatThrownBy(() -> export(store, "nobody"))
          .isInstanceOf(LedgerNotFoundException.class);
    }
  }

  /** Imports {@code input} into a store that holds another ledger, and expects a refusal. */
  private void assertRefusedLeavingTheStoreUnchanged(byte[] input,
      Class<? extends RuntimeException> type, String message) throws IOException {
    Path targetDir = dir.resolve("target");
    try (FileLedgerStore target = FileLedgerStore.open(targetDir, options())) {
      if (target.rootIds().isEmpty()) {
        target.ledger("other", Doc.class).commit(0, new Doc("o", Map.of()));
      }
    }
    DirectorySnapshot before = snapshot(targetDir);
    try (FileLedgerStore target = FileLedgerStore.open(targetDir, options())) {
      assertThatThrownBy(() -> target.importLedger(new ByteArrayInputStream(input)))
          .isInstanceOf(type).hasMessageContaining(message);
    }
    assertThat(before.diff(snapshot(targetDir))).isEmpty();
    assertThat(snapshot(targetDir)).isEqualTo(before);
  }

  @Test
  void importOfAnExistingLedgerIsRefused() throws IOException {
    byte[] exported = sourceExport();
    Path targetDir = dir.resolve("target");
    try (FileLedgerStore target = FileLedgerStore.open(targetDir, options())) {
      target.ledger(ROOT, Doc.class).commit(0, new Doc("mine", Map.of()));
    }
    assertRefusedLeavingTheStoreUnchanged(exported, LedgerExistsException.class,
        "'run-1' already exists");
    try (FileLedgerStore target = FileLedgerStore.open(targetDir, options())) {
      assertThat(target.ledger(ROOT, Doc.class).load().state().text()).isEqualTo("mine");
    }
  }

  @Test
  void truncatedExportsAreRefused() throws IOException {
    byte[] exported = sourceExport();
    List<byte[]> lines = lines(exported);
    // Cut at a line boundary: the header counts the missing records.
    assertRefusedLeavingTheStoreUnchanged(join(lines.subList(0, lines.size() - 1)),
        InvalidExportException.class, "truncated");
    // Cut inside the last line.
    assertRefusedLeavingTheStoreUnchanged(Arrays.copyOf(exported, exported.length - 10),
        InvalidExportException.class, "truncated");
    // Only the header.
    assertRefusedLeavingTheStoreUnchanged(lines.get(0), InvalidExportException.class,
        "truncated");
    assertRefusedLeavingTheStoreUnchanged(new byte[0], InvalidExportException.class, "empty");
  }

  @Test
  void aFlippedByteInAnyLineIsRefused() throws IOException {
    byte[] exported = sourceExport();
    List<byte[]> lines = lines(exported);
    int[] lineIndexes = {0, 1, 2, lines.size() / 2, lines.size() - 1};
    for (int index : lineIndexes) {
      int offset = 0;
      for (int i = 0; i < index; i++) {
        offset += lines.get(i).length;
      }
      // A byte inside the JSON value, past the frame.
      int at = offset + lines.get(index).length - 8;
      byte[] damaged = exported.clone();
      damaged[at] ^= 0x01;
      Path targetDir = dir.resolve("target");
      assertRefusedLeavingTheStoreUnchanged(damaged, InvalidExportException.class,
          "line " + (index + 1));
      try (FileLedgerStore target = FileLedgerStore.open(targetDir, options())) {
        assertThat(target.rootIds()).containsExactly("other");
      }
    }
  }

  @Test
  void recordsOutOfOrderOrExtraAreRefused() throws IOException {
    List<byte[]> lines = lines(sourceExport());
    List<byte[]> swapped = new ArrayList<>(lines);
    swapped.set(3, lines.get(4));
    swapped.set(4, lines.get(3));
    assertRefusedLeavingTheStoreUnchanged(join(swapped), InvalidExportException.class,
        "revision 4, expected 3");
    List<byte[]> extra = new ArrayList<>(lines);
    extra.add(lines.get(lines.size() - 1));
    assertRefusedLeavingTheStoreUnchanged(join(extra), InvalidExportException.class,
        "more lines than");
  }

  /** A header line with a valid checksum over {@code body}. */
  private static byte[] header(String body) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    return ("{\"crc32c\":\"" + HexFormat.of().toHexDigits((int) crc.getValue())
        + "\",\"export\":" + body + "}\n").getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void headersOfAnotherKindOrANewerFormatAreRefused() throws IOException {
    List<byte[]> lines = lines(sourceExport());
    String good = "{\"exportedAt\":\"2026-11-30T12:00:00Z\",\"format\":1,"
        + "\"kind\":\"dev.ledger.export\",\"recordFormat\":2,\"revisions\":" + COMMITS
        + ",\"root\":\"run-1\"}";
    List<byte[]> valid = new ArrayList<>(lines);
    valid.set(0, header(good));
    // The test's own header is accepted: the refusals below are for the field changed.
    try (FileLedgerStore scratch = FileLedgerStore.open(dir.resolve("scratch"), options())) {
      assertThat(scratch.importLedger(new ByteArrayInputStream(join(valid))).revision())
          .isEqualTo(COMMITS);
    }
    Map<String, String> refusals = Map.of(
        good.replace("dev.ledger.export", "dev.ledger.backup"), "header kind",
        good.replace("\"format\":1", "\"format\":2"), "export format 2",
        good.replace("\"recordFormat\":2", "\"recordFormat\":3"), "record format 3",
        good.replace("\"root\":\"run-1\"", "\"root\":\"../x\""), "not a valid root id");
    for (Map.Entry<String, String> refusal : refusals.entrySet()) {
      List<byte[]> input = new ArrayList<>(lines);
      input.set(0, header(refusal.getKey()));
      assertRefusedLeavingTheStoreUnchanged(join(input), InvalidExportException.class,
          refusal.getValue());
    }
    // A journal segment is not an export.
    List<byte[]> headless = lines.subList(1, lines.size());
    assertRefusedLeavingTheStoreUnchanged(join(headless), InvalidExportException.class,
        "not a ledger export header");
  }

  @Test
  void aReadOnlyStoreRefusesAnImport() throws IOException {
    byte[] exported = sourceExport();
    Path targetDir = dir.resolve("target");
    FileLedgerStore.open(targetDir, options()).close();
    DirectorySnapshot before = snapshot(targetDir);
    try (FileLedgerStore target = FileLedgerStore.openReadOnly(targetDir)) {
      assertThatThrownBy(() -> target.importLedger(new ByteArrayInputStream(exported)))
          .isInstanceOf(ReadOnlyStoreException.class);
      // Reading is allowed: a read-only store exports.
    }
    assertThat(snapshot(targetDir)).isEqualTo(before);
    try (FileLedgerStore source = FileLedgerStore.openReadOnly(dir.resolve("source"))) {
      assertThat(export(source, ROOT)).hasSizeGreaterThan(0);
    }
  }

  /** Each export taken while a writer commits imports to a whole ledger at some revision. */
  @Test
  void anExportBesideAWriterIsAConsistentPrefix() throws Exception {
    Path sourceDir = dir.resolve("source");
    LedgerOptions fast = LedgerOptions.defaults().withSegmentBytes(4096)
        .withCheckpointInterval(5);
    int commits = 300;
    AtomicReference<Throwable> failure = new AtomicReference<>();
    try (FileLedgerStore source = FileLedgerStore.open(sourceDir, fast)) {
      Ledger<Doc> ledger = source.ledger(ROOT, Doc.class);
      ledger.commit(0, new Doc("t", Map.of("n", 1)), EventDraft.of("e", Map.of("n", 1)));
      Thread writer = new Thread(() -> {
        try {
          for (int n = 2; n <= commits; n++) {
            ledger.commit(n - 1, new Doc("t", Map.of("n", n)),
                EventDraft.of("e", Map.of("n", n)), EventDraft.of("f", Map.of("n", n)));
          }
        } catch (Throwable t) {
          failure.set(t);
        }
      });
      writer.start();
      List<Long> seen = new ArrayList<>();
      int round = 0;
      while (writer.isAlive() || round == 0) {
        byte[] exported = export(source, ROOT);
        Path target = dir.resolve("target-" + round++);
        try (FileLedgerStore store = FileLedgerStore.open(target, fast)) {
          ImportResult result = store.importLedger(new ByteArrayInputStream(exported));
          long revision = result.revision();
          seen.add(revision);
          assertThat(lines(exported)).hasSize((int) revision + 1);
          assertThat(result.events()).isEqualTo(2 * revision - 1);
          Versioned<Doc> loaded = store.ledger(ROOT, Doc.class).load();
          assertThat(loaded.state().counts()).containsEntry("n", (int) revision);
          assertThat(store.verify().clean()).isTrue();
        }
      }
      writer.join();
      assertThat(failure.get()).isNull();
      assertThat(seen).isSorted();
      assertThat(seen.size()).isGreaterThan(1);
    }
  }
}
