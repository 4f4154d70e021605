package dev.ledger.core.fs;

import static dev.ledger.core.fs.PatchFixture.ROOT;
import static dev.ledger.core.fs.PatchFixture.request;
import static dev.ledger.core.fs.PatchFixture.requests;
import static dev.ledger.core.fs.PatchFixture.state;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.CommandConflictException;
import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.EventFollower;
import dev.ledger.core.ImportResult;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.RepairResult;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.StoreClosedException;
import dev.ledger.core.VerifyReport;
import dev.ledger.core.internal.command.CommandDigests;
import dev.ledger.core.spi.CommitRequest;
import dev.ledger.core.spi.LoggedCommit;
import dev.ledger.core.spi.PatchLog;
import dev.ledger.core.spi.PatchRequest;
import dev.ledger.core.spi.StoredState;
import dev.ledger.testing.base.DirectorySnapshot;
import dev.ledger.testing.base.MutableClock;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link FileLedger} as a {@link PatchLog}, through {@link FileLedgerStore#patchLog}. */
class FileLedgerPatchLogTest {
  @TempDir
  Path dir;

  private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T12:00:00Z"));

  /** Small segments, so that a few dozen commits span several; a checkpoint interval of 4. */
  private LedgerOptions options() {
    return LedgerOptions.defaults().withClock(clock).withSegmentBytes(4096)
        .withCheckpointInterval(4);
  }

  private FileLedgerStore open() {
    return FileLedgerStore.open(dir.resolve("store"), options());
  }

  private Path ledgerDir() {
    return dir.resolve("store/ledgers").resolve(ROOT);
  }

  private static List<LoggedCommit> after(PatchLog log, long revision) {
    try (Stream<LoggedCommit> commits = log.commitsAfter(revision)) {
      return commits.toList();
    }
  }

  private static List<Event> events(Ledger<?> ledger) {
    try (Stream<Event> all = ledger.replay(Cursor.START)) {
      return all.toList();
    }
  }

  /** Commits revisions 1..to, alternating single commits and batches of up to 3. */
  private void commitUpTo(PatchLog log, long to) {
    long r = after(log, 0).size();
    while (r < to) {
      long last = Math.min(to, r + 1 + (r % 3));
      if (last == r + 1) {
        log.commitPatch(request(r + 1));
      } else {
        log.commitPatches(requests(r + 1, last));
      }
      clock.advance(Duration.ofSeconds(1));
      r = last;
    }
  }

  private DirectorySnapshot snapshot() throws IOException {
    return DirectorySnapshot.of(dir.resolve("store"), DirectorySnapshot.Options.defaults()
        .ignoringTimesOf(".lock"));
  }

  @Test
  void patchCommitsLoadAsTheFoldedState() {
    try (FileLedgerStore store = open()) {
      PatchLog log = store.patchLog(ROOT);
      Ledger<JsonNode> ledger = store.ledger(ROOT, JsonNode.class);
      assertThat(ledger.find()).isEmpty();
      List<dev.ledger.core.Versioned<JsonNode>> loaded = new ArrayList<>();
      for (long r = 1; r <= 30; r++) {
        CommitResult result = log.commitPatch(request(r));
        assertThat(result.revision()).isEqualTo(r);
        assertThat(result.replayed()).isFalse();
        assertThat(result.events()).extracting(Event::sequence).containsExactly(r);
        // Every other load: the reader's cache then lags one or two patch commits behind.
        if (r % 2 == 0) {
          loaded.add(ledger.load());
          assertThat(ledger.load().state()).as("revision %s", r).isEqualTo(state(r));
          assertThat(ledger.load().revision()).isEqualTo(r);
        }
      }
      // States handed out earlier are never changed by later folds (which work in place).
      for (var v : loaded) {
        assertThat(v.state()).as("state of revision %s", v.revision())
            .isEqualTo(state(v.revision()));
      }
      assertThat(events(ledger)).extracting(e -> e.payload().get("revision").asLong())
          .containsExactlyElementsOf(range(1, 30));
      assertThat(store.head(ROOT).orElseThrow().revision()).isEqualTo(30);
    }
    // A cold reader (new store) folds the journal from its start: no checkpoint was written.
    assertThat(Files.exists(ledgerDir().resolve("state.json"))).isFalse();
    try (FileLedgerStore store = open()) {
      assertThat(store.ledger(ROOT, JsonNode.class).load().state()).isEqualTo(state(30));
      // The close wrote the command index entries: retried commands are found.
      assertThat(store.ledger(ROOT, JsonNode.class).command(PatchFixture.commandId(7)))
          .map(CommitResult::revision).contains(7L);
    }
  }

  @Test
  void theFirstRecordIsAStateAndTheRestArePatches() {
    try (FileLedgerStore store = open()) {
      PatchLog log = store.patchLog(ROOT);
      log.commitPatches(requests(1, 3));
      log.commitPatch(request(4));
      List<LoggedCommit> commits = after(log, 0);
      assertThat(commits).extracting(LoggedCommit::revision).containsExactly(1L, 2L, 3L, 4L);
      assertThat(commits.get(0).state()).isEqualTo(state(1));
      assertThat(commits.get(0).patch()).isNull();
      for (int i = 1; i < 4; i++) {
        assertThat(commits.get(i).state()).isNull();
        assertThat(commits.get(i).patch()).isEqualTo(PatchFixture.patch(i + 1));
        assertThat(commits.get(i).commandId())
            .isEqualTo(CommitRequest.publicCommandId(PatchFixture.commandId(i + 1)));
        assertThat(commits.get(i).events()).extracting(Event::revision)
            .containsExactly((long) i + 1);
      }
    }
  }

  @Test
  void commitsAfterReadsFromAnyRevisionAcrossSegmentsAndCheckpoints() throws IOException {
    try (FileLedgerStore store = open()) {
      PatchLog log = store.patchLog(ROOT);
      assertThat(after(log, 0)).isEmpty();
      commitUpTo(log, 40);
      assertThat(log.checkpoint(40, state(40), 0)).isTrue();
      commitUpTo(log, 55);
      try (Stream<Path> segments = Files.list(ledgerDir().resolve("journal"))) {
        assertThat(segments.count()).as("segments").isGreaterThan(2);
      }
      for (long from : new long[] {0, 1, 17, 39, 40, 41, 54, 55, 56, 1000}) {
        List<LoggedCommit> commits = after(log, from);
        assertThat(commits).extracting(LoggedCommit::revision).as("after %s", from)
            .containsExactlyElementsOf(range(from + 1, 55));
        // Folding them onto the state at `from` gives the head.
        if (from >= 1 && from < 55) {
          JsonNode folded = state(from);
          for (LoggedCommit c : commits) {
            folded = c.state() != null ? c.state()
                : dev.ledger.core.internal.json.MergePatch.apply(folded, c.patch());
          }
          assertThat(folded).as("fold after %s", from).isEqualTo(state(55));
        }
      }
      assertThatThrownBy(() -> log.commitsAfter(-1)).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void commitsAfterIsLazyAndHoldsEveryCommitAcknowledgedBeforeItOpened() {
    try (FileLedgerStore store = open()) {
      PatchLog log = store.patchLog(ROOT);
      commitUpTo(log, 3);
      List<Long> seen = new ArrayList<>();
      try (Stream<LoggedCommit> commits = log.commitsAfter(1)) {
        var it = commits.iterator();
        seen.add(it.next().revision());
        // A commit while the stream is open: it may or may not be in the stream, whole.
        log.commitPatch(request(4));
        it.forEachRemaining(c -> seen.add(c.revision()));
      }
      assertThat(seen).startsWith(2L, 3L).isSubsetOf(2L, 3L, 4L);
      assertThat(after(log, 1)).extracting(LoggedCommit::revision).containsExactly(2L, 3L, 4L);
    }
  }

  @Test
  void aBatchIsCheckedWholeBeforeAnythingIsWritten() throws IOException {
    try (FileLedgerStore store = open()) {
      PatchLog log = store.patchLog(ROOT);
      commitUpTo(log, 5);
      DirectorySnapshot before = snapshot();
      assertThatThrownBy(() -> log.commitPatches(List.of()))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> log.commitPatches(List.of(request(6), request(8))))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("request 1");
      PatchRequest again = new PatchRequest(6, PatchFixture.patch(7), 0, PatchFixture.drafts(6),
          request(6).publicCommandId(), request(6).commandDigest());
      assertThatThrownBy(() -> log.commitPatches(List.of(request(6), again)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("repeats command");
      // Stale revision: refused whole.
      List<PatchRequest> stale = List.of(
          new PatchRequest(4, PatchFixture.patch(6), 0, List.of(), null, null),
          new PatchRequest(5, PatchFixture.patch(7), 0, List.of(), null, null));
      assertThatThrownBy(() -> log.commitPatches(stale))
          .isInstanceOfSatisfying(RevisionConflictException.class, e -> {
            assertThat(e.expected()).isEqualTo(4);
            assertThat(e.actual()).isEqualTo(5);
          });
      // A command already recorded, even with the same content, refuses the batch.
      PatchRequest recorded = new PatchRequest(7, PatchFixture.patch(8), 0,
          PatchFixture.drafts(3), request(3).publicCommandId(), request(3).commandDigest());
      assertThatThrownBy(() -> log.commitPatches(List.of(request(6), request(7), recorded)))
          .isInstanceOfSatisfying(CommandConflictException.class,
              e -> assertThat(e.recordedRevision()).isEqualTo(3));
      assertThat(snapshot().diff(before)).isEmpty();
      assertThat(snapshot()).isEqualTo(before);
      assertThat(store.head(ROOT).orElseThrow().revision()).isEqualTo(5);
      // The same batch, fixed, commits.
      List<CommitResult> results = log.commitPatches(requests(6, 8));
      assertThat(results).extracting(CommitResult::revision).containsExactly(6L, 7L, 8L);
      assertThat(results).flatExtracting(CommitResult::events).extracting(Event::sequence)
          .containsExactly(6L, 7L, 8L);
      assertThat(store.ledger(ROOT, JsonNode.class).load().state()).isEqualTo(state(8));
    }
  }

  @Test
  void aRetriedCommandReplaysAndADifferentOneConflicts() throws IOException {
    CommitResult first;
    try (FileLedgerStore store = open()) {
      PatchLog log = store.patchLog(ROOT);
      commitUpTo(log, 4);
      first = log.commitPatch(request(5));
      commitUpTo(log, 6);
      DirectorySnapshot before = snapshot();
      // The same command, even against a stale revision: the recorded result, nothing written.
      CommitResult retry = log.commitPatch(request(5));
      assertThat(retry.replayed()).isTrue();
      assertThat(retry.revision()).isEqualTo(5);
      assertThat(retry.events()).isEqualTo(first.events());
      assertThat(retry.cursor()).isEqualTo(first.cursor());
      List<EventDraft> other = List.of(EventDraft.of("patched", Map.of("revision", 99))
          .withCommandId(PatchFixture.commandId(5)));
      PatchRequest conflicting = new PatchRequest(6, PatchFixture.patch(7), 0, other,
          request(5).publicCommandId(), CommandDigests.intent(other));
      assertThatThrownBy(() -> log.commitPatch(conflicting))
          .isInstanceOfSatisfying(CommandConflictException.class,
              e -> assertThat(e.recordedRevision()).isEqualTo(5));
      assertThat(log.commitPatch(request(6)).replayed()).isTrue();
      assertThat(snapshot()).isEqualTo(before);
      // A new command at a stale revision conflicts on the revision.
      PatchRequest stale = new PatchRequest(5, PatchFixture.patch(7), 0, List.of(), null, null);
      assertThatThrownBy(() -> log.commitPatch(stale))
          .isInstanceOf(RevisionConflictException.class);
    }
    // After a restart, from the command index.
    try (FileLedgerStore store = open()) {
      CommitResult retry = store.patchLog(ROOT).commitPatch(request(5));
      assertThat(retry.replayed()).isTrue();
      assertThat(retry.events()).isEqualTo(first.events());
      // And through a Ledger: the same command id.
      assertThat(store.ledger(ROOT, JsonNode.class).command(PatchFixture.commandId(2)))
          .map(CommitResult::revision).contains(2L);
    }
  }

  @Test
  void checkpointIsWrittenOnlyAtTheNewestRevision() {
    try (FileLedgerStore store = open()) {
      PatchLog log = store.patchLog(ROOT);
      assertThat(log.checkpoint()).isEmpty();
      assertThat(log.checkpoint(1, state(1), 0)).as("no ledger yet").isFalse();
      assertThat(Files.exists(ledgerDir())).isFalse();
      commitUpTo(log, 9);
      // The interval wrote no state.json for a patch-only ledger.
      assertThat(log.checkpoint()).isEmpty();
      assertThat(log.checkpoint(8, state(8), 0)).isFalse();
      assertThat(log.checkpoint(10, state(10), 0)).isFalse();
      assertThat(log.checkpoint()).isEmpty();
      assertThatThrownBy(() -> log.checkpoint(9, state(9), 3))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("state version 0");
      assertThatThrownBy(() -> log.checkpoint(0, state(9), 0))
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(log.checkpoint(9, state(9), 0)).isTrue();
      StoredState checkpoint = log.checkpoint().orElseThrow();
      assertThat(checkpoint.revision()).isEqualTo(9);
      assertThat(checkpoint.state()).isEqualTo(state(9));
      assertThat(checkpoint.stateVersion()).isZero();
      commitUpTo(log, 12);
      assertThat(log.checkpoint().orElseThrow().revision()).isEqualTo(9);
      assertThat(store.verify().clean()).as("%s", store.verify()).isTrue();
    }
    try (FileLedgerStore store = open()) {
      assertThat(store.ledger(ROOT, JsonNode.class).load().state()).isEqualTo(state(12));
      assertThat(store.patchLog(ROOT).checkpoint().orElseThrow().revision()).isEqualTo(9);
    }
  }

  @Test
  void journalBytesSinceCheckpointGrowsAndResets() throws IOException {
    try (FileLedgerStore store = open()) {
      PatchLog log = store.patchLog(ROOT);
      assertThat(log.journalBytesSinceCheckpoint()).isZero();
      long previous = 0;
      for (long r = 1; r <= 20; r++) {
        log.commitPatch(request(r));
        long bytes = log.journalBytesSinceCheckpoint();
        assertThat(bytes).as("after revision %s", r).isGreaterThan(previous)
            .isEqualTo(journalDataBytes());
        previous = bytes;
      }
      assertThat(log.checkpoint(20, state(20), 0)).isTrue();
      assertThat(log.journalBytesSinceCheckpoint()).isZero();
      log.commitPatch(request(21));
      long one = log.journalBytesSinceCheckpoint();
      assertThat(one).isPositive().isEqualTo(lastRecordBytes());
      // Another store (as another process would) sees the same.
      try (FileLedgerStore other = open()) {
        assertThat(other.patchLog(ROOT).journalBytesSinceCheckpoint()).isEqualTo(one);
      }
    }
  }

  /** Bytes of record lines in the journal, preallocated zeros left out. */
  private long journalDataBytes() throws IOException {
    long total = 0;
    try (Stream<Path> segments = Files.list(ledgerDir().resolve("journal"))) {
      for (Path segment : segments.toList()) {
        byte[] bytes = Files.readAllBytes(segment);
        int end = bytes.length;
        while (end > 0 && bytes[end - 1] == 0) {
          end--;
        }
        total += end;
      }
    }
    return total;
  }

  private long lastRecordBytes() throws IOException {
    try (Stream<Path> segments = Files.list(ledgerDir().resolve("journal"))) {
      Path last = segments.max(Path::compareTo).orElseThrow();
      String text = new String(Files.readAllBytes(last), java.nio.charset.StandardCharsets.UTF_8)
          .replace("\0", "");
      String[] lines = text.split("\n");
      return lines[lines.length - 1].length() + 1;
    }
  }

  @Test
  void ledgerCommitsAndPatchCommitsInterleave() {
    try (FileLedgerStore store = open()) {
      PatchLog log = store.patchLog(ROOT);
      Ledger<JsonNode> ledger = store.ledger(ROOT, JsonNode.class);
      commitUpTo(log, 6);
      // A Ledger commit after patch commits: the writer holds no state, records a whole one.
      ObjectNode seven = state(7);
      ledger.commit(6, seven, PatchFixture.drafts(7));
      assertThat(after(log, 6).get(0).state()).isEqualTo(seven);
      assertThat(ledger.load().state()).isEqualTo(seven);
      // The next Ledger commits diff again, and checkpoint by interval.
      for (long r = 8; r <= 12; r++) {
        long revision = r;
        ledger.update(s -> dev.ledger.core.Change.to(state(revision),
            PatchFixture.drafts(revision)));
      }
      List<LoggedCommit> commits = after(log, 7);
      assertThat(commits).extracting(LoggedCommit::patch).doesNotContainNull();
      assertThat(log.checkpoint()).map(StoredState::revision).isPresent();
      // Patch commits again, then a load, then a Ledger commit.
      log.commitPatches(requests(13, 15));
      assertThat(ledger.load().state()).isEqualTo(state(15));
      ledger.commit(15, state(16), PatchFixture.drafts(16));
      log.commitPatch(request(17));
      assertThat(ledger.load().state()).isEqualTo(state(17));
      assertThat(events(ledger)).extracting(e -> e.payload().get("revision").asLong())
          .containsExactlyElementsOf(range(1, 17));
      assertThat(store.verify().clean()).as("%s", store.verify()).isTrue();
    }
    try (FileLedgerStore store = open()) {
      assertThat(store.ledger(ROOT, JsonNode.class).load().state()).isEqualTo(state(17));
    }
  }

  @Test
  void anotherStoreSeesPatchCommitsAndCatchesUp() {
    try (FileLedgerStore a = open(); FileLedgerStore b = open()) {
      PatchLog logA = a.patchLog(ROOT);
      PatchLog logB = b.patchLog(ROOT);
      Ledger<JsonNode> ledgerB = b.ledger(ROOT, JsonNode.class);
      commitUpTo(logA, 5);
      assertThat(ledgerB.load().state()).isEqualTo(state(5));
      // B's writer catches up from the journal, then A's catches up with B's commits.
      logB.commitPatches(requests(6, 8));
      logA.commitPatch(request(9));
      ledgerB.commit(9, state(10), PatchFixture.drafts(10));
      logA.commitPatch(request(11));
      assertThatThrownBy(() -> logB.commitPatch(new PatchRequest(9, PatchFixture.patch(12), 0,
          List.of(), null, null))).isInstanceOf(RevisionConflictException.class);
      // A command recorded by the other store replays.
      assertThat(logB.commitPatch(request(9)).replayed()).isTrue();
      assertThat(after(logB, 0)).extracting(LoggedCommit::revision)
          .containsExactlyElementsOf(range(1, 11));
      assertThat(a.ledger(ROOT, JsonNode.class).load().state()).isEqualTo(state(11));
      assertThat(ledgerB.load().state()).isEqualTo(state(11));
      assertThat(logA.checkpoint(11, state(11), 0)).isTrue();
      assertThat(logB.journalBytesSinceCheckpoint()).isZero();
    }
  }

  @Test
  void commitsAfterReadsOnFromWhereThisProcessLastSawTheEndAcrossWritersAndSegments() {
    try (FileLedgerStore a = open(); FileLedgerStore b = open()) {
      PatchLog logA = a.patchLog(ROOT);
      PatchLog logB = b.patchLog(ROOT);
      // A's own commits: the next read after its head starts where its last append ended.
      commitUpTo(logA, 5);
      assertThat(after(logA, 5)).isEmpty();
      // Another writer commits, rolling segments, patches and a whole state.
      commitUpTo(logB, 30);
      b.ledger(ROOT, JsonNode.class).commit(30, state(31), PatchFixture.drafts(31));
      logB.commitPatch(request(32));
      List<LoggedCommit> seen = after(logA, 5);
      assertThat(seen).extracting(LoggedCommit::revision)
          .containsExactlyElementsOf(range(6, 32));
      assertThat(seen.get(25).state()).isEqualTo(state(31));
      assertThat(seen).flatExtracting(LoggedCommit::events).extracting(Event::sequence)
          .containsExactlyElementsOf(range(6, 32));
      // That read reached the end: the next one starts there and sees only what follows.
      assertThat(after(logA, 32)).isEmpty();
      logB.commitPatch(request(33));
      assertThat(after(logA, 32)).extracting(LoggedCommit::revision).containsExactly(33L);
      assertThat(after(logA, 33)).isEmpty();
      // Revisions before the last end seen are read from the checkpoint or segment as before.
      assertThat(logB.checkpoint(33, state(33), 0)).isTrue();
      assertThat(after(logA, 20)).extracting(LoggedCommit::revision)
          .containsExactlyElementsOf(range(21, 33));
      assertThat(after(logA, 0)).extracting(LoggedCommit::revision)
          .containsExactlyElementsOf(range(1, 33));
      logA.commitPatch(request(34));
      assertThat(after(logB, 33)).extracting(LoggedCommit::revision).containsExactly(34L);
      JsonNode folded = state(20);
      for (LoggedCommit c : after(logA, 20)) {
        folded = c.state() != null ? c.state()
            : dev.ledger.core.internal.json.MergePatch.apply(folded, c.patch());
      }
      assertThat(folded).isEqualTo(state(34));
    }
  }

  @Test
  void aLedgerDeletedAndCreatedAgainByAnotherStoreIsCheckedInItsNewFiles() {
    try (FileLedgerStore a = open(); FileLedgerStore b = open()) {
      PatchLog logA = a.patchLog(ROOT);
      PatchLog logB = b.patchLog(ROOT);
      commitUpTo(logA, 3);
      // A's own commit and a check at its end: the check keeps a channel on segment 1.
      assertThat(after(logA, 3)).isEmpty();
      assertThat(b.delete(ROOT)).isTrue();
      // The same first three records again (same lengths), then more: the old file, still
      // open in A's channel, has preallocated zeros at A's mark; the new one revision 4.
      commitUpTo(logB, 6);
      // A's revision 3 is of the removed ledger, even though the new one's first three
      // records are the same bytes: refused, as PostgreSQL's generation check refuses it.
      assertThatThrownBy(() -> after(logA, 3)).isInstanceOf(RevisionConflictException.class)
          .hasMessageContaining("expected revision 3, actual revision 6");
      assertThatThrownBy(() -> after(logA, 3)).as("until A opens its view afresh")
          .isInstanceOf(RevisionConflictException.class);
      assertThat(after(logA, 0)).extracting(LoggedCommit::revision)
          .containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
      assertThat(after(logA, 6)).isEmpty();
      logB.commitPatch(request(7));
      assertThat(after(logA, 6)).extracting(LoggedCommit::revision).containsExactly(7L);
    }
  }

  /**
   * A writer whose ledger another store of this JVM deleted and created again must not
   * append to the removed files: its next commit expects a revision the new ledger does not
   * have, and is refused. Repeated, because the new lock file often gets the removed one's
   * inode number, so its file key alone does not tell them apart.
   */
  @Test
  void aWriterBehindADeleteAndRecreateByAnotherStoreIsRefusedNotWrittenToTheRemovedFiles() {
    for (int round = 0; round < 20; round++) {
      String root = "recreated-" + round;
      try (FileLedgerStore a = open(); FileLedgerStore b = open()) {
        PatchLog logA = a.patchLog(root);
        PatchLog logB = b.patchLog(root);
        logA.commitPatch(request(1));
        logA.commitPatch(request(2));
        logA.commitPatch(request(3));
        assertThat(b.delete(root)).isTrue();
        logB.commitPatch(request(1));
        int r = round;
        assertThatThrownBy(() -> logA.commitPatch(request(4)))
            .as("round %s", r).isInstanceOf(RevisionConflictException.class);
        assertThat(after(logB, 0)).as("round %s", r).extracting(LoggedCommit::revision)
            .containsExactly(1L);
      }
    }
  }

  /** How many descriptors of this process are open on {@code file} (Linux). */
  private static long descriptorsOn(Path file) throws IOException {
    Path real = file.toRealPath();
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.filter(fd -> {
        try {
          return Files.readSymbolicLink(fd).equals(real);
        } catch (IOException e) {
          return false; // closed meanwhile (the listing's own descriptor)
        }
      }).count();
    }
  }

  @Test
  void theCheckChannelIsKeptWhileTheWriterIsOpenAndClosedWhenItIsParkedOrClosed()
      throws IOException {
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self/fd")),
        "descriptors are counted through /proc/self/fd, which Linux has");
    Path segment = ledgerDir().resolve("journal").resolve("00000000000000000001.jsonl");
    try (FileLedgerStore store = FileLedgerStore.open(dir.resolve("store"),
        options().withSegmentBytes(1 << 20).withOpenWriterLimit(1))) {
      PatchLog log = store.patchLog(ROOT);
      commitUpTo(log, 3);
      assertThat(descriptorsOn(segment)).as("the writer's channel").isEqualTo(1);
      assertThat(after(log, 3)).isEmpty();
      assertThat(descriptorsOn(segment)).as("the writer's and the check's").isEqualTo(2);
      assertThat(after(log, 3)).isEmpty();
      assertThat(descriptorsOn(segment)).as("kept, not opened again").isEqualTo(2);
      // Another ledger commits: this one is parked, and lets go of both.
      store.patchLog("other").commitPatch(request(1));
      assertThat(descriptorsOn(segment)).as("parked").isZero();
      assertThat(after(log, 3)).isEmpty();
      assertThat(descriptorsOn(segment)).as("a parked ledger's check keeps nothing").isZero();
      // Back from parking, the first commit ends the file (no zeros: the check needs no
      // channel), the next one preallocates again.
      log.commitPatch(request(4));
      assertThat(after(log, 4)).isEmpty();
      assertThat(descriptorsOn(segment)).as("the file ends at the mark").isEqualTo(1);
      log.commitPatch(request(5));
      assertThat(after(log, 5)).isEmpty();
      assertThat(descriptorsOn(segment)).as("kept again").isEqualTo(2);
    }
    assertThat(descriptorsOn(segment)).as("closed").isZero();
  }

  @Test
  void verifyRepairExportImportAndFollowWorkOnPatchWrittenLedgers() throws Exception {
    byte[] exported;
    List<Event> followed = new ArrayList<>();
    try (FileLedgerStore store = open()) {
      PatchLog log = store.patchLog(ROOT);
      Ledger<JsonNode> ledger = store.ledger(ROOT, JsonNode.class);
      try (EventFollower follower = ledger.follow(Cursor.START)) {
        commitUpTo(log, 25);
        while (followed.size() < 25) {
          followed.add(follower.next(Duration.ofSeconds(10))
              .orElseThrow(() -> new AssertionError("no event within the deadline")));
        }
      }
      assertThat(followed).extracting(Event::sequence).containsExactlyElementsOf(range(1, 25));
      VerifyReport report = store.verify();
      assertThat(report.clean()).as("%s", report).isTrue();
      assertThat(report.records()).isEqualTo(25);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      assertThat(store.export(ROOT, out)).isEqualTo(25);
      exported = out.toByteArray();
    }
    try (FileLedgerStore target = FileLedgerStore.open(dir.resolve("target"), options())) {
      ImportResult result = target.importLedger(new ByteArrayInputStream(exported));
      assertThat(result.revision()).isEqualTo(25);
      Ledger<JsonNode> copy = target.ledger(ROOT, JsonNode.class);
      assertThat(copy.load().state()).isEqualTo(state(25));
      assertThat(events(copy)).isEqualTo(followed);
      ByteArrayOutputStream again = new ByteArrayOutputStream();
      target.export(ROOT, again);
      assertThat(again.toByteArray()).isEqualTo(exported);
      assertThat(target.verify().clean()).isTrue();
      // The imported ledger takes patch commits.
      target.patchLog(ROOT).commitPatch(request(26));
      assertThat(copy.load().state()).isEqualTo(state(26));
    }
    try (FileLedgerStore store = open()) {
      RepairResult repaired = store.repair(ROOT);
      assertThat(repaired.revision()).isEqualTo(25);
      assertThat(store.verify().clean()).isTrue();
      assertThat(store.repair(ROOT).changed()).isFalse();
      assertThat(store.ledger(ROOT, JsonNode.class).load().state()).isEqualTo(state(25));
    }
  }

  @Test
  void aClosedStoreRefusesItsPatchLog() {
    FileLedgerStore store = open();
    PatchLog log = store.patchLog(ROOT);
    log.commitPatch(request(1));
    store.close();
    assertThatThrownBy(() -> log.commitPatch(request(2)))
        .isInstanceOf(StoreClosedException.class);
    assertThatThrownBy(() -> store.patchLog(ROOT)).isInstanceOf(StoreClosedException.class);
    try (FileLedgerStore readOnly = FileLedgerStore.openReadOnly(dir.resolve("store"))) {
      PatchLog view = readOnly.patchLog(ROOT);
      assertThat(after(view, 0)).hasSize(1);
      assertThatThrownBy(() -> view.commitPatch(request(2)))
          .isInstanceOf(dev.ledger.core.ReadOnlyStoreException.class);
    }
  }

  @Test
  void racingThreadsEachCommitOnceThroughRevisionChecks() throws Exception {
    int threads = 4;
    int each = 10;
    try (FileLedgerStore store = open()) {
      PatchLog log = store.patchLog(ROOT);
      log.commitPatch(new PatchRequest(0, com.fasterxml.jackson.databind.node.JsonNodeFactory
          .instance.objectNode().put("start", true), 0, List.of(), null, null));
      java.util.concurrent.ExecutorService pool =
          java.util.concurrent.Executors.newFixedThreadPool(threads);
      try {
        List<java.util.concurrent.Future<Integer>> conflicts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          int thread = t;
          conflicts.add(pool.submit(() -> {
            int lost = 0;
            for (int i = 0; i < each; i++) {
              ObjectNode patch = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
                  .objectNode().put("t" + thread + "-" + i, i);
              List<EventDraft> drafts = List.of(EventDraft.of("set", Map.of("i", i))
                  .withCommandId("t" + thread + "-" + i));
              while (true) {
                long head = store.head(ROOT).orElseThrow().revision();
                try {
                  log.commitPatch(new PatchRequest(head, patch, 0, drafts,
                      CommitRequest.publicCommandId("t" + thread + "-" + i),
                      CommandDigests.intent(drafts)));
                  break;
                } catch (RevisionConflictException e) {
                  lost++;
                }
              }
            }
            return lost;
          }));
        }
        for (var f : conflicts) {
          f.get(60, java.util.concurrent.TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
      JsonNode loaded = store.ledger(ROOT, JsonNode.class).load().state();
      assertThat(store.head(ROOT).orElseThrow().revision()).isEqualTo(1 + threads * each);
      assertThat(loaded.size()).isEqualTo(1 + threads * each);
      for (int t = 0; t < threads; t++) {
        for (int i = 0; i < each; i++) {
          assertThat(loaded.get("t" + t + "-" + i).asInt()).isEqualTo(i);
        }
      }
      assertThat(store.verify().clean()).isTrue();
    }
  }

  @Test
  void badArgumentsAreRefusedWritingNothing() throws IOException {
    try (FileLedgerStore store = open()) {
      assertThatThrownBy(() -> store.patchLog(null)).isInstanceOf(NullPointerException.class);
      assertThatThrownBy(() -> store.patchLog("bad/id"))
          .isInstanceOf(dev.ledger.core.InvalidIdentifierException.class);
      PatchLog log = store.patchLog(ROOT);
      assertThat(log.rootId()).isEqualTo(ROOT);
      log.commitPatch(request(1));
      DirectorySnapshot before = snapshot();
      assertThatThrownBy(() -> log.commitPatch(null)).isInstanceOf(NullPointerException.class);
      assertThatThrownBy(() -> log.commitPatches(null))
          .isInstanceOf(NullPointerException.class);
      List<PatchRequest> withNull = new ArrayList<>();
      withNull.add(request(2));
      withNull.add(null);
      assertThatThrownBy(() -> log.commitPatches(withNull))
          .isInstanceOf(NullPointerException.class).hasMessageContaining("request 1");
      assertThatThrownBy(() -> log.checkpoint(1, null, 0))
          .isInstanceOf(NullPointerException.class);
      assertThatThrownBy(() -> log.checkpoint(1, state(1), -1))
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(snapshot()).isEqualTo(before);
      // A record past the options' line limit, a checkpoint past the readers' bound: refused.
      try (FileLedgerStore small = FileLedgerStore.open(dir.resolve("store"),
          options().withLimits(1024, 1024))) {
        ObjectNode big = PatchFixture.patch(2);
        big.put("blob", "x".repeat(200_000));
        PatchRequest tooBig = new PatchRequest(1, big, 0, List.of(), null, null);
        assertThatThrownBy(() -> small.patchLog(ROOT).commitPatch(tooBig))
            .isInstanceOf(dev.ledger.core.LimitExceededException.class);
        assertThatThrownBy(() -> small.patchLog(ROOT).checkpoint(1, big, 0))
            .isInstanceOf(dev.ledger.core.LimitExceededException.class);
        assertThat(small.patchLog(ROOT).checkpoint()).isEmpty();
        assertThat(after(small.patchLog(ROOT), 0)).hasSize(1);
      }
    }
  }

  private static List<Long> range(long from, long to) {
    List<Long> all = new ArrayList<>();
    for (long r = from; r <= to; r++) {
      all.add(r);
    }
    return all;
  }
}
