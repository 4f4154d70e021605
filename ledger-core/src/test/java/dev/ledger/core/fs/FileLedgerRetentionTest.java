package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.core.Cursor;
import dev.ledger.core.Durability;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.ReadOnlyStoreException;
import dev.ledger.core.RepairResult;
import dev.ledger.core.RetentionPolicy;
import dev.ledger.core.RetentionResult;
import dev.ledger.core.VerifyReport;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * File-store specifics of retention: the marker and its order against the deletes, the
 * checkpoint written first, the archive directory, debris of an interrupted retention, and
 * verify, repair and a read-only store on a truncated journal.
 */
class FileLedgerRetentionTest {
  @TempDir
  Path dir;

  record Step(long n, String pad) {}

  private static final String PAD = "y".repeat(200);

  private Path base() {
    return dir.resolve("store");
  }

  private Path ledgerDir() {
    return base().resolve("ledgers").resolve("r");
  }

  private static LedgerOptions options(int checkpointInterval) {
    return LedgerOptions.defaults().withSegmentBytes(4096)
        .withCheckpointInterval(checkpointInterval).withDurability(Durability.SYNC);
  }

  private static void commit(Ledger<Step> ledger, long from, long to) {
    for (long n = from + 1; n <= to; n++) {
      ledger.commit(n - 1, new Step(n, PAD), EventDraft.of("step", Map.of("n", n))
          .withCommandId("cmd-" + n));
    }
  }

  private List<Long> segments() throws IOException {
    try (Stream<Path> files = Files.list(ledgerDir().resolve("journal"))) {
      return files.map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".jsonl"))
          .map(n -> Long.parseLong(n.substring(0, 20))).sorted().toList();
    }
  }

  @Test
  void markerNamesTheFirstKeptSegmentAndEverySegmentBeforeItIsGone() throws IOException {
    try (FileLedgerStore store = FileLedgerStore.open(base(), options(5))) {
      Ledger<Step> ledger = store.ledger("r", Step.class);
      commit(ledger, 0, 80);
      List<Long> before = segments();
      long bytesBefore = 0;
      for (long s : before) {
        bytesBefore += Files.size(ledgerDir().resolve("journal").resolve(JournalFiles.name(s)));
      }
      RetentionResult result = store.applyRetention("r", RetentionPolicy.keepRevisions(20));
      List<Long> after = segments();
      assertThat(after.get(0)).isEqualTo(result.firstRetainedRevision());
      assertThat(before).containsSubsequence(after);
      assertThat(result.segmentsRemoved()).isEqualTo(before.size() - after.size());
      long bytesAfter = 0;
      for (long s : after) {
        bytesAfter += Files.size(ledgerDir().resolve("journal").resolve(JournalFiles.name(s)));
      }
      assertThat(result.bytesRemoved()).isEqualTo(bytesBefore - bytesAfter);
      assertThat(result.firstRetainedRevision()).isLessThanOrEqualTo(61);

      JsonNode marker = LedgerJson.parse(Files.readAllBytes(ledgerDir()
          .resolve("retention.json")));
      assertThat(marker.get("firstRevision").asLong())
          .isEqualTo(result.firstRetainedRevision());
      assertThat(marker.get("firstSequence").asLong())
          .isEqualTo(result.firstRetainedSequence());
      assertThat(marker.at("/base/revision").asLong())
          .isEqualTo(result.firstRetainedRevision() - 1);
      assertThat(marker.at("/base/state/n").asLong())
          .isEqualTo(result.firstRetainedRevision() - 1);
      assertThat(store.verify().clean()).as("%s", store.verify()).isTrue();
    }
    // Another store (another process) sees the same journal.
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(base())) {
      Ledger<Step> ledger = store.ledger("r", Step.class);
      assertThat(ledger.load().state().n()).isEqualTo(80);
      try (Stream<Event> events = ledger.replay(Cursor.START)) {
        List<Event> all = events.toList();
        assertThat(all.get(0).sequence()).isEqualTo(ledger.firstRetainedSequence());
        assertThat(all.get(all.size() - 1).sequence()).isEqualTo(80);
      }
      assertThatThrownBy(() -> store.applyRetention("r", RetentionPolicy.keepRevisions(1)))
          .isInstanceOf(ReadOnlyStoreException.class);
      assertThat(store.verify().clean()).isTrue();
    }
  }

  @Test
  void aCheckpointIsWrittenFirstWhenTheLastOnePointsIntoRemovedHistory() throws IOException {
    try (FileLedgerStore store = FileLedgerStore.open(base(), options(1000))) {
      Ledger<Step> ledger = store.ledger("r", Step.class);
      commit(ledger, 0, 60);
      assertThat(ledgerDir().resolve("state.json")).doesNotExist();
      RetentionResult result = store.applyRetention("r", RetentionPolicy.keepRevisions(5));
      assertThat(result.checkpointWritten()).isTrue();
      Checkpoint checkpoint = Checkpoint.read(ledgerDir().resolve("state.json"), "r", 1 << 20);
      assertThat(checkpoint.revision()).isEqualTo(60);
      assertThat(checkpoint.segment()).isGreaterThanOrEqualTo(result.firstRetainedRevision());
      commit(ledger, 60, 62);
    }
    try (FileLedgerStore store = FileLedgerStore.open(base(), options(1000))) {
      assertThat(store.ledger("r", Step.class).load().state().n()).isEqualTo(62);
      assertThat(store.verify().clean()).as("%s", store.verify()).isTrue();
    }
  }

  @Test
  void archiveReceivesTheRemovedSegmentsUnchanged() throws IOException {
    Path archive = dir.resolve("archive");
    try (FileLedgerStore store = FileLedgerStore.open(base(), options(5))) {
      Ledger<Step> ledger = store.ledger("r", Step.class);
      commit(ledger, 0, 60);
      List<Long> before = segments();
      byte[] first = Files.readAllBytes(ledgerDir().resolve("journal")
          .resolve(JournalFiles.name(1)));
      RetentionResult result = store.applyRetention("r", RetentionPolicy.keepRevisions(10),
          archive);
      Path archived = archive.resolve("r").resolve("journal");
      try (Stream<Path> files = Files.list(archived)) {
        assertThat(files.count()).isEqualTo(result.segmentsRemoved());
      }
      assertThat(Files.readAllBytes(archived.resolve(JournalFiles.name(1)))).isEqualTo(first);
      assertThat(segments()).hasSize(before.size() - result.segmentsRemoved());
    }
  }

  @Test
  void segmentsLeftByAnInterruptedRetentionAreNotesAndTheNextRetentionRemovesThem()
      throws IOException {
    Path journal = ledgerDir().resolve("journal");
    byte[] first;
    try (FileLedgerStore store = FileLedgerStore.open(base(), options(5))) {
      Ledger<Step> ledger = store.ledger("r", Step.class);
      commit(ledger, 0, 60);
      first = Files.readAllBytes(journal.resolve(JournalFiles.name(1)));
      store.applyRetention("r", RetentionPolicy.keepRevisions(10));
    }
    // A crash after the marker and before the first delete leaves the segment behind.
    Files.write(journal.resolve(JournalFiles.name(1)), first);
    try (FileLedgerStore store = FileLedgerStore.open(base(), options(5))) {
      Ledger<Step> ledger = store.ledger("r", Step.class);
      VerifyReport report = store.verify();
      assertThat(report.clean()).as("%s", report).isTrue();
      assertThat(report.findings()).extracting(VerifyReport.Finding::kind)
          .contains(VerifyReport.Kind.RETAINED_LEFTOVER);
      long firstRetained = ledger.firstRetainedSequence();
      try (Stream<Event> events = ledger.replay(Cursor.START)) {
        assertThat(events.findFirst().orElseThrow().sequence()).isEqualTo(firstRetained);
      }
      RetentionResult again = store.applyRetention("r", RetentionPolicy.keepRevisions(60));
      assertThat(again.revisionsRemoved()).isZero();
      assertThat(again.segmentsRemoved()).isEqualTo(1);
      assertThat(journal.resolve(JournalFiles.name(1))).doesNotExist();
      assertThat(store.verify().findings()).isEmpty();
    }
  }

  @Test
  void repairRebuildsTheCheckpointFromTheMarkerAndKeepsEntriesOfRemovedCommands()
      throws IOException {
    try (FileLedgerStore store = FileLedgerStore.open(base(), options(5))) {
      commit(store.ledger("r", Step.class), 0, 60);
      store.applyRetention("r", RetentionPolicy.keepRevisions(10));
    }
    Files.delete(ledgerDir().resolve("state.json"));
    try (FileLedgerStore store = FileLedgerStore.open(base(), options(5))) {
      // Still readable from the marker's base state and the journal after it.
      assertThat(store.ledger("r", Step.class).load().state().n()).isEqualTo(60);
      RepairResult repaired = store.repair("r");
      assertThat(repaired.checkpointRewritten()).isTrue();
      assertThat(repaired.commandEntriesRemoved()).isZero();
      assertThat(store.verify().clean()).as("%s", store.verify()).isTrue();
      Ledger<Step> ledger = store.ledger("r", Step.class);
      assertThat(ledger.load().state().n()).isEqualTo(60);
      assertThat(ledger.command("cmd-1").orElseThrow().revision()).isEqualTo(1);
    }
  }

  @Test
  void aDamagedMarkerIsDamageThatRepairRefuses() throws IOException {
    try (FileLedgerStore store = FileLedgerStore.open(base(), options(5))) {
      commit(store.ledger("r", Step.class), 0, 60);
      store.applyRetention("r", RetentionPolicy.keepRevisions(10));
    }
    Files.writeString(ledgerDir().resolve("retention.json"), "{\"format\":1,");
    try (FileLedgerStore store = FileLedgerStore.open(base(), options(5))) {
      VerifyReport report = store.verify();
      assertThat(report.findings()).extracting(VerifyReport.Finding::kind)
          .contains(VerifyReport.Kind.BAD_RETENTION_MARKER);
      assertThatThrownBy(() -> store.repair("r"))
          .isInstanceOf(dev.ledger.core.UnrepairableLedgerException.class)
          .hasMessageContaining("retention.json");
      assertThatThrownBy(() -> store.ledger("r", Step.class).events(Cursor.START, 1))
          .isInstanceOf(dev.ledger.core.CorruptLedgerException.class)
          .hasMessageContaining("retention.json");
    }
  }
}
