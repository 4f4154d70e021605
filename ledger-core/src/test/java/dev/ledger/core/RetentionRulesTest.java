package dev.ledger.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.core.memory.InMemoryLedgerStore;
import dev.ledger.testing.base.MutableClock;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The rules of retention that both stores keep ({@link RetentionPolicy}): what is removed,
 * where reads start, what a cursor into removed history gets, what a command whose commit was
 * removed replays, and that export refuses. The file store removes whole segments, so it may
 * keep more than the memory store; every assertion allows for that and no more.
 */
class RetentionRulesTest {
  @TempDir
  Path dir;

  /** A state that makes a record about 300 bytes: a 4 KiB segment holds about a dozen. */
  record Step(long n, String pad) {}

  private static final String PAD = "x".repeat(200);

  /** The two built-in stores, opened the same way. */
  enum Kind {
    FILE, MEMORY;

    LedgerStore open(Path dir, LedgerOptions options) {
      return this == FILE ? FileLedgerStore.open(dir.resolve("store"), options)
          : InMemoryLedgerStore.create(options);
    }

    RetentionResult retain(LedgerStore store, String root, RetentionPolicy policy) {
      return store instanceof FileLedgerStore file ? file.applyRetention(root, policy)
          : ((InMemoryLedgerStore) store).applyRetention(root, policy);
    }
  }

  private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T10:00:00Z"));

  private LedgerOptions options() {
    return LedgerOptions.defaults().withClock(clock).withSegmentBytes(4096)
        .withCheckpointInterval(7);
  }

  private static EventDraft draft(long n) {
    return EventDraft.of("step", Map.of("n", n)).withCommandId("cmd-" + n);
  }

  /** Commits revisions from+1..to, one event each, advancing the clock a minute per commit. */
  private void commit(Ledger<Step> ledger, long from, long to) {
    for (long n = from + 1; n <= to; n++) {
      ledger.commit(n - 1, new Step(n, PAD), draft(n));
      clock.advance(Duration.ofMinutes(1));
    }
  }

  private static List<Event> all(Ledger<Step> ledger) {
    List<Event> events = new ArrayList<>();
    Cursor cursor = Cursor.START;
    while (true) {
      EventPage page = ledger.events(cursor, 7);
      events.addAll(page.events());
      cursor = page.nextCursor();
      if (!page.hasMore()) {
        return events;
      }
    }
  }

  /** Events from START begin at the first retained sequence and run gaplessly to the head. */
  private static void assertReadsFromFirstRetained(Ledger<Step> ledger, RetentionResult result,
      long head) {
    List<Event> events = all(ledger);
    assertThat(ledger.firstRetainedSequence()).isEqualTo(result.firstRetainedSequence());
    assertThat(events).isNotEmpty();
    assertThat(events.get(0).sequence()).isEqualTo(result.firstRetainedSequence());
    assertThat(events.get(0).revision()).isEqualTo(result.firstRetainedRevision());
    for (int i = 0; i < events.size(); i++) {
      assertThat(events.get(i).revision()).isEqualTo(result.firstRetainedRevision() + i);
    }
    assertThat(events.get(events.size() - 1).revision()).isEqualTo(head);
    try (Stream<Event> replay = ledger.replay(Cursor.START)) {
      assertThat(replay.map(Event::sequence).toList())
          .isEqualTo(events.stream().map(Event::sequence).toList());
    }
    assertThat(ledger.load().revision()).isEqualTo(head);
    assertThat(ledger.load().state().n()).isEqualTo(head);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void keepRevisionsRemovesHistoryBeforeTheLastN(Kind kind) {
    try (LedgerStore store = kind.open(dir, options())) {
      Ledger<Step> ledger = store.ledger("r", Step.class);
      commit(ledger, 0, 60);
      assertThat(ledger.firstRetainedSequence()).isEqualTo(1);
      RetentionResult result = kind.retain(store, "r", RetentionPolicy.keepRevisions(10));
      assertThat(result.firstRetainedRevision()).isBetween(2L, 51L);
      assertThat(result.revisionsRemoved()).isEqualTo(result.firstRetainedRevision() - 1);
      assertThat(result.bytesRemoved()).isPositive();
      if (kind == Kind.MEMORY) {
        assertThat(result.firstRetainedRevision()).isEqualTo(51);
      } else {
        assertThat(result.segmentsRemoved()).isPositive();
        assertThat(result.firstRetainedRevision()).isGreaterThan(35); // segments of ~12
      }
      assertReadsFromFirstRetained(ledger, result, 60);
      // Commits go on; a second application with nothing new removes nothing.
      commit(ledger, 60, 61);
      RetentionResult again = kind.retain(store, "r", RetentionPolicy.keepRevisions(61));
      assertThat(again.changed()).isFalse();
      assertThat(again.firstRetainedRevision()).isEqualTo(result.firstRetainedRevision());
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void keepHistoryKeepsEveryCommitWithinTheDuration(Kind kind) {
    try (LedgerStore store = kind.open(dir, options())) {
      Ledger<Step> ledger = store.ledger("t", Step.class);
      commit(ledger, 0, 40);                 // 10:00 .. 10:39
      clock.advance(Duration.ofHours(5));
      commit(ledger, 40, 60);                // 15:40 .. 15:59
      RetentionResult result = kind.retain(store, "t",
          RetentionPolicy.keepHistory(Duration.ofHours(1)));
      assertThat(result.firstRetainedRevision()).isBetween(2L, 41L);
      if (kind == Kind.MEMORY) {
        assertThat(result.firstRetainedRevision()).isEqualTo(41);
      }
      assertReadsFromFirstRetained(ledger, result, 60);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void bothRulesKeepWhatEitherKeeps(Kind kind) {
    try (LedgerStore store = kind.open(dir, options())) {
      Ledger<Step> ledger = store.ledger("b", Step.class);
      commit(ledger, 0, 60);                 // one an minute: all within two hours
      RetentionResult none = kind.retain(store, "b",
          RetentionPolicy.keepRevisions(5).orHistory(Duration.ofHours(2)));
      assertThat(none.changed()).isFalse();
      assertThat(none.firstRetainedRevision()).isEqualTo(1);
      assertThat(all(ledger)).hasSize(60);
      // The last 30 minutes, or the last 50 revisions: the revisions keep more.
      RetentionResult some = kind.retain(store, "b",
          RetentionPolicy.keepHistory(Duration.ofMinutes(30)).orRevisions(50));
      assertThat(some.firstRetainedRevision()).isBetween(2L, 11L);
      assertReadsFromFirstRetained(ledger, some, 60);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void theLatestCommitIsAlwaysKept(Kind kind) {
    try (LedgerStore store = kind.open(dir, options())) {
      Ledger<Step> ledger = store.ledger("l", Step.class);
      commit(ledger, 0, 50);
      clock.advance(Duration.ofDays(30));
      RetentionResult result = kind.retain(store, "l",
          RetentionPolicy.keepHistory(Duration.ZERO));
      assertThat(result.firstRetainedRevision()).isBetween(2L, 50L);
      assertReadsFromFirstRetained(ledger, result, 50);
      commit(ledger, 50, 52);
      assertThat(ledger.load().state().n()).isEqualTo(52);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aCursorIntoRemovedHistoryIsRefusedWithTheFirstRetainedSequence(Kind kind)
      throws InterruptedException {
    try (LedgerStore store = kind.open(dir, options())) {
      Ledger<Step> ledger = store.ledger("c", Step.class);
      commit(ledger, 0, 60);
      Cursor early = ledger.events(Cursor.START, 3).nextCursor();     // after sequence 3
      RetentionResult result = kind.retain(store, "c", RetentionPolicy.keepRevisions(10));
      long first = result.firstRetainedSequence();

      assertThatThrownBy(() -> ledger.events(early, 10))
          .isInstanceOfSatisfying(HistoryTruncatedException.class, e -> {
            assertThat(e.rootId()).isEqualTo("c");
            assertThat(e.cursorSequence()).isEqualTo(3);
            assertThat(e.firstRetainedSequence()).isEqualTo(first);
            assertThat(e).hasMessageContaining("'c'").hasMessageContaining(
                "first retained sequence " + first);
          });
      assertThatThrownBy(() -> ledger.replay(early).close())
          .isInstanceOf(HistoryTruncatedException.class);
      try (EventFollower follower = ledger.follow(early)) {
        assertThatThrownBy(() -> follower.next(Duration.ZERO))
            .isInstanceOfSatisfying(HistoryTruncatedException.class,
                e -> assertThat(e.firstRetainedSequence()).isEqualTo(first));
        assertThat(follower.isClosed()).isTrue();
      }
      // A follower from START starts at the first retained event.
      try (EventFollower follower = ledger.follow(Cursor.START)) {
        assertThat(follower.next(Duration.ofSeconds(5)).orElseThrow().sequence())
            .isEqualTo(first);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aCursorThatCoversEveryRemovedEventReadsOn(Kind kind) {
    try (LedgerStore store = kind.open(dir, options())) {
      Ledger<Step> ledger = store.ledger("k", Step.class);
      commit(ledger, 0, 60);
      List<Event> before = all(ledger);
      // Cursors after every event, taken before the retention.
      List<Cursor> cursors = new ArrayList<>();
      Cursor cursor = Cursor.START;
      for (int i = 0; i < 60; i++) {
        EventPage page = ledger.events(cursor, 1);
        cursor = page.nextCursor();
        cursors.add(cursor);
      }
      RetentionResult result = kind.retain(store, "k", RetentionPolicy.keepRevisions(10));
      long first = result.firstRetainedSequence();
      for (int i = 0; i < 60; i++) {
        long after = i + 1;
        Cursor c = cursors.get(i);
        if (after + 1 < first) {
          assertThatThrownBy(() -> ledger.events(c, 5)).as("cursor after %s", after)
              .isInstanceOf(HistoryTruncatedException.class);
        } else if (after == 60) {
          assertThat(ledger.events(c, 5).events()).isEmpty();
        } else {
          EventPage page = ledger.events(c, 5);
          assertThat(page.events()).as("cursor after %s", after).isNotEmpty();
          assertThat(page.events().get(0)).isEqualTo(before.get((int) after));
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aCommandWhoseCommitWasRemovedStillReplaysWithoutEvents(Kind kind) {
    try (LedgerStore store = kind.open(dir, options())) {
      Ledger<Step> ledger = store.ledger("i", Step.class);
      commit(ledger, 0, 60);
      RetentionResult result = kind.retain(store, "i", RetentionPolicy.keepRevisions(10));
      long first = result.firstRetainedRevision();

      CommitResult removed = ledger.command("cmd-2").orElseThrow();
      assertThat(removed.replayed()).isTrue();
      assertThat(removed.revision()).isEqualTo(2);
      assertThat(removed.events()).isEmpty();
      // Its cursor reads on from the first retained event.
      assertThat(ledger.events(removed.cursor(), 1).events().get(0).sequence())
          .isEqualTo(result.firstRetainedSequence());

      // A retry writes nothing and replays the same; a different command conflicts.
      CommitResult retry = ledger.commit(1, new Step(2, PAD), draft(2));
      assertThat(retry.replayed()).isTrue();
      assertThat(retry.revision()).isEqualTo(2);
      assertThatThrownBy(() -> ledger.commit(1, new Step(2, PAD),
          EventDraft.of("other", Map.of()).withCommandId("cmd-2")))
          .isInstanceOf(CommandConflictException.class);
      assertThat(ledger.load().revision()).isEqualTo(60);

      // A kept command replays whole.
      CommitResult kept = ledger.command("cmd-" + first).orElseThrow();
      assertThat(kept.events()).extracting(Event::revision).containsExactly(first);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void exportOfATruncatedLedgerIsRefused(Kind kind) {
    try (LedgerStore store = kind.open(dir, options())) {
      Ledger<Step> ledger = store.ledger("e", Step.class);
      commit(ledger, 0, 60);
      kind.retain(store, "e", RetentionPolicy.keepRevisions(10));
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      assertThatThrownBy(() -> store.export("e", out))
          .isInstanceOf(HistoryTruncatedException.class)
          .hasMessageContaining("export is refused");
      assertThat(out.size()).isZero();
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void retentionOfAMissingLedgerIsRefused(Kind kind) {
    try (LedgerStore store = kind.open(dir, options())) {
      assertThatThrownBy(() -> kind.retain(store, "nobody", RetentionPolicy.keepRevisions(1)))
          .isInstanceOf(LedgerNotFoundException.class);
      assertThatThrownBy(() -> kind.retain(store, "x", null))
          .isInstanceOf(NullPointerException.class);
    }
  }

  @org.junit.jupiter.api.Test
  void policiesCheckTheirArguments() {
    assertThatThrownBy(() -> RetentionPolicy.keepRevisions(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0");
    assertThatThrownBy(() -> RetentionPolicy.keepHistory(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT-1S");
    assertThatThrownBy(() -> new RetentionPolicy(java.util.OptionalLong.empty(),
        java.util.Optional.empty())).isInstanceOf(IllegalArgumentException.class);
    RetentionPolicy both = RetentionPolicy.keepRevisions(3).orHistory(Duration.ofHours(1));
    assertThat(both.firstKeptByCount(10)).isEqualTo(8);
    assertThat(both.firstKeptByCount(2)).isEqualTo(1);
    Instant now = Instant.parse("2026-11-30T10:00:00Z");
    assertThat(both.keepsByTime(now.minus(Duration.ofMinutes(60)), now)).isTrue();
    assertThat(both.keepsByTime(now.minus(Duration.ofMinutes(61)), now)).isFalse();
    assertThat(RetentionPolicy.keepHistory(Duration.ZERO).firstKeptByCount(10))
        .isEqualTo(Long.MAX_VALUE);
  }
}
