package dev.ledger.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.core.CommitResult;
import dev.ledger.core.EventPage;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.InvalidIdentifierException;
import dev.ledger.core.CommandConflictException;
import dev.ledger.core.LimitExceededException;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.InvalidCursorException;
import dev.ledger.core.Versioned;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.Event;
import dev.ledger.core.LedgerNotFoundException;
import dev.ledger.core.Cursor;
import dev.ledger.core.StoreClosedException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link LedgerStore} must share. A backend runs it by extending this
 * class and implementing {@link #openStore}; it ships in ledger-core's test-jar so that other
 * modules and users can run it against their own backends.
 */
public abstract class LedgerStoreContractTest {
  /** For subclasses, one per store implementation. */
  protected LedgerStoreContractTest() {}

  /** The fixed instant the contract clock reads. */
  protected static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");

  /** A small state type, as a record. */
  public record Plan(String name, int steps, List<String> done) {
    public Plan {
      done = List.copyOf(done);
    }

    Plan step(String task) {
      List<String> next = new ArrayList<>(done);
      next.add(task);
      return new Plan(name, steps + 1, next);
    }
  }

  protected LedgerStore store;

  /** Opens a fresh, empty store with {@code options}; called once per test (or reopen). */
  protected abstract LedgerStore openStore(LedgerOptions options);

  /** Reopens the same store (a new instance on the same data); in-memory stores may skip. */
  protected LedgerStore reopen(LedgerOptions options) {
    return store;
  }

  /** Whether {@link #reopen} gives a new instance over the same data. */
  protected boolean persistent() {
    return false;
  }

  protected LedgerOptions options() {
    return LedgerOptions.defaults()
        .withClock(Clock.fixed(NOW, ZoneOffset.UTC))
        .withLockTimeout(Duration.ofSeconds(10));
  }

  @BeforeEach
  void openFresh() {
    store = openStore(options());
  }

  @AfterEach
  void closeStore() {
    if (store != null) {
      store.close();
    }
  }

  private static Plan plan(int steps) {
    return new Plan("p", steps, List.of());
  }

  private static EventDraft event(String type, int n) {
    return EventDraft.of(type, Map.of("n", n));
  }

  // ------------------------------------------------------------------ create / load

  @Test
  void absentLedgerIsNotFound() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    assertThatThrownBy(ledger::load).isInstanceOf(LedgerNotFoundException.class)
        .hasMessageContaining("root-1");
    assertThat(ledger.find()).isEmpty();
    assertThat(store.rootIds()).isEmpty();
  }

  @Test
  void firstCommitCreatesRevisionOne() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    CommitResult result = ledger.commit(Ledger.NO_REVISION, plan(0), event("created", 1));
    assertThat(result.revision()).isEqualTo(1);
    assertThat(result.committedAt()).isEqualTo(NOW);
    assertThat(result.replayed()).isFalse();
    assertThat(result.events()).singleElement().satisfies(e -> {
      assertThat(e.sequence()).isEqualTo(1);
      assertThat(e.revision()).isEqualTo(1);
      assertThat(e.type()).isEqualTo("created");
      assertThat(e.rootId()).isEqualTo("root-1");
      assertThat(e.occurredAt()).isEqualTo(NOW);
      assertThat(e.payload().get("n").asInt()).isEqualTo(1);
      assertThat(e.commandId()).isNull();
    });
    Versioned<Plan> loaded = ledger.load();
    assertThat(loaded.state()).isEqualTo(plan(0));
    assertThat(loaded.revision()).isEqualTo(1);
    assertThat(loaded.updatedAt()).isEqualTo(NOW);
    assertThat(store.rootIds()).containsExactly("root-1");
  }

  @Test
  void commitsAdvanceRevisionAndState() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(Ledger.NO_REVISION, plan(0));
    Plan current = plan(0);
    for (int i = 1; i <= 20; i++) {
      current = current.step("t" + i);
      CommitResult r = ledger.commit(i, current, event("step", i));
      assertThat(r.revision()).isEqualTo(i + 1);
    }
    assertThat(ledger.load().state()).isEqualTo(current);
    assertThat(ledger.load().revision()).isEqualTo(21);
  }

  @Test
  void jsonNodeStatesAndRecordStatesViewTheSameLedger() {
    store.ledger("root-1", Plan.class).commit(0, new Plan("x", 2, List.of("a")));
    JsonNode tree = store.ledger("root-1", JsonNode.class).load().state();
    assertThat(tree.get("name").asText()).isEqualTo("x");
    assertThat(tree.get("done").get(0).asText()).isEqualTo("a");
  }

  @Test
  void stateWithNullsAndArraysRoundTrips() {
    Ledger<JsonNode> ledger = store.ledger("root-1", JsonNode.class);
    ObjectNode state = JsonNodeFactory.instance.objectNode();
    state.put("a", 1).putNull("gone").putArray("list").add(1).add(2);
    state.putObject("nested").put("x", "y").putNull("z");
    ledger.commit(0, state);
    ObjectNode next = state.deepCopy();
    ((ObjectNode) next.get("nested")).putNull("x");
    next.remove("a");
    ((com.fasterxml.jackson.databind.node.ArrayNode) next.get("list")).add(3);
    ledger.commit(1, next);
    assertThat(ledger.load().state()).isEqualTo(next);
    if (persistent()) {
      store.close();
      store = reopen(options());
      assertThat(store.ledger("root-1", JsonNode.class).load().state()).isEqualTo(next);
    }
  }

  @Test
  void loadedStatesAreCopies() {
    Ledger<JsonNode> ledger = store.ledger("root-1", JsonNode.class);
    ObjectNode state = JsonNodeFactory.instance.objectNode().put("a", 1);
    ledger.commit(0, state);
    state.put("a", 2);
    ((ObjectNode) ledger.load().state()).put("a", 3);
    assertThat(ledger.load().state().get("a").asInt()).isEqualTo(1);
  }

  // ------------------------------------------------------------------ conflicts

  @Test
  void commitWithStaleRevisionIsRejected() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0));
    ledger.commit(1, plan(1));
    assertThatThrownBy(() -> ledger.commit(1, plan(9), event("x", 1)))
        .isInstanceOfSatisfying(RevisionConflictException.class, e -> {
          assertThat(e.expected()).isEqualTo(1);
          assertThat(e.actual()).isEqualTo(2);
          assertThat(e.rootId()).isEqualTo("root-1");
        })
        .hasMessageContaining("root-1").hasMessageContaining("expected revision 1")
        .hasMessageContaining("actual revision 2");
    assertThat(ledger.load().state()).isEqualTo(plan(1));
    assertThat(ledger.events(Cursor.START, 10).events()).isEmpty();
  }

  @Test
  void creatingAnExistingLedgerIsAConflict() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0));
    assertThatThrownBy(() -> ledger.commit(Ledger.NO_REVISION, plan(5)))
        .isInstanceOfSatisfying(RevisionConflictException.class, e -> {
          assertThat(e.expected()).isZero();
          assertThat(e.actual()).isEqualTo(1);
        });
  }

  @Test
  void commitAheadOfAnAbsentLedgerIsAConflict() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    assertThatThrownBy(() -> ledger.commit(3, plan(0)))
        .isInstanceOfSatisfying(RevisionConflictException.class,
            e -> assertThat(e.actual()).isZero());
    assertThat(ledger.find()).isEmpty();
  }

  // ------------------------------------------------------------------ commands

  @Test
  void retriedCommandReturnsOriginalResultAndWritesNothing() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0));
    EventDraft draft = event("task.started", 7).withCommandId("cmd-42").withOperationId("op-1");
    CommitResult first = ledger.commit(1, plan(1), draft);
    CommitResult again = ledger.commit(1, plan(1), draft);
    assertThat(again.replayed()).isTrue();
    assertThat(again.revision()).isEqualTo(first.revision());
    assertThat(again.events()).isEqualTo(first.events());
    assertThat(again.cursor()).isEqualTo(first.cursor());
    assertThat(again.committedAt()).isEqualTo(first.committedAt());
    assertThat(ledger.load().revision()).isEqualTo(2);
    assertThat(ledger.events(Cursor.START, 100).events()).hasSize(1);
    ledger.commit(2, plan(2));
    CommitResult later = ledger.commit(2, plan(1), draft);
    assertThat(later.replayed()).isTrue();
    assertThat(later.revision()).isEqualTo(2);
    assertThat(ledger.load().revision()).isEqualTo(3);
  }

  @Test
  void commandIdIsPublishedAsDigestNeverRaw() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    CommitResult r = ledger.commit(0, plan(0), event("x", 1).withCommandId("secret-id"));
    String id = r.events().get(0).commandId();
    assertThat(id).startsWith("cmd_").hasSize(68).doesNotContain("secret-id");
    assertThat(r.events().get(0).operationId()).isNull();
  }

  @Test
  void sameCommandIdWithDifferentContentIsAConflict() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0));
    ledger.commit(1, plan(1), event("x", 1).withCommandId("cmd-1"));
    assertThatThrownBy(() -> ledger.commit(2, plan(2), event("x", 1).withCommandId("cmd-1")))
        .isInstanceOfSatisfying(CommandConflictException.class, e -> {
          assertThat(e.recordedRevision()).isEqualTo(2);
          assertThat(e.recordedDigest()).isNotEqualTo(e.attemptedDigest());
        }).hasMessageContaining("root-1");
    assertThatThrownBy(() -> ledger.commit(1, plan(1), event("x", 2).withCommandId("cmd-1")))
        .isInstanceOf(CommandConflictException.class);
    assertThatThrownBy(() -> ledger.commit(1, plan(1), event("y", 1).withCommandId("cmd-1")))
        .isInstanceOf(CommandConflictException.class);
    assertThat(ledger.load().revision()).isEqualTo(2);
  }

  @Test
  void commandsSurviveCheckpointsAndReopen() {
    store.close();
    store = openStore(options().withCheckpointInterval(3));
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0), event("x", 0).withCommandId("c-0"));
    for (int i = 1; i < 10; i++) {
      ledger.commit(i, plan(i), event("x", i).withCommandId("c-" + i));
    }
    if (persistent()) {
      store.close();
      store = reopen(options().withCheckpointInterval(3));
      ledger = store.ledger("root-1", Plan.class);
    }
    for (int i = 0; i < 10; i++) {
      CommitResult again = ledger.commit(i, plan(i), event("x", i).withCommandId("c-" + i));
      assertThat(again.replayed()).isTrue();
      assertThat(again.revision()).isEqualTo(i + 1);
      assertThat(again.events().get(0).sequence()).isEqualTo(i + 1);
    }
    Ledger<Plan> view = ledger;
    assertThatThrownBy(() -> view.commit(10, plan(99), event("x", 4).withCommandId("c-4")))
        .isInstanceOf(CommandConflictException.class);
    assertThat(ledger.load().revision()).isEqualTo(10);
  }

  @Test
  void draftsOfOneCommitMustShareTheirCommandId() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    assertThatThrownBy(() -> ledger.commit(0, plan(0), event("a", 1).withCommandId("c1"),
        event("b", 1).withCommandId("c2"))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("c1").hasMessageContaining("c2");
    CommitResult r = ledger.commit(0, plan(0), event("a", 1).withCommandId("c1"), event("b", 2));
    assertThat(r.events()).extracting(Event::commandId).containsOnly(r.events().get(0).commandId());
  }

  // ------------------------------------------------------------------ events and cursors

  @Test
  void eventsAreGaplessAndStampedWithTheirRevision() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0), event("a", 1), event("a", 2));
    ledger.commit(1, plan(1));
    ledger.commit(2, plan(2), event("b", 3));
    List<Event> events = ledger.events(Cursor.START, 100).events();
    assertThat(events).extracting(Event::sequence).containsExactly(1L, 2L, 3L);
    assertThat(events).extracting(Event::revision).containsExactly(1L, 1L, 3L);
    assertThat(events.get(0).id()).isNotEqualTo(events.get(1).id()).hasSize(64);
  }

  @Test
  void eventIdsAreDeterministic() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0), event("a", 1));
    // sha256("root-1:1")
    assertThat(ledger.events(Cursor.START, 1).events().get(0).id())
        .isEqualTo(Sha256.hex("root-1:1"));
  }

  @Test
  void pagingIsExclusiveAndReportsHasMore() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0));
    for (int i = 1; i <= 7; i++) {
      ledger.commit(i, plan(i), event("e", i), event("e", i));
    }
    List<Long> seen = new ArrayList<>();
    Cursor cursor = Cursor.START;
    int pages = 0;
    while (true) {
      EventPage page = ledger.events(cursor, 3);
      page.events().forEach(e -> seen.add(e.sequence()));
      pages++;
      if (!page.hasMore()) {
        assertThat(page.nextCursor()).isNotEqualTo(Cursor.START);
        cursor = page.nextCursor();
        break;
      }
      assertThat(page.events()).hasSize(3);
      cursor = page.nextCursor();
    }
    assertThat(pages).isEqualTo(5);
    assertThat(seen).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L, 12L, 13L, 14L);
    EventPage empty = ledger.events(cursor, 10);
    assertThat(empty.events()).isEmpty();
    assertThat(empty.hasMore()).isFalse();
    assertThat(empty.nextCursor()).isEqualTo(cursor);
    ledger.commit(8, plan(8), event("late", 99));
    EventPage after = ledger.events(cursor, 10);
    assertThat(after.events()).extracting(Event::sequence).containsExactly(15L);
  }

  @Test
  void pageOfExactlyTheRemainingEventsHasNoMore() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0), event("e", 1), event("e", 2));
    EventPage page = ledger.events(Cursor.START, 2);
    assertThat(page.events()).hasSize(2);
    assertThat(page.hasMore()).isFalse();
  }

  @Test
  void commitCursorCoversItsEvents() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    CommitResult first = ledger.commit(0, plan(0), event("a", 1));
    CommitResult quiet = ledger.commit(1, plan(1));
    ledger.commit(2, plan(2), event("b", 2));
    assertThat(ledger.events(first.cursor(), 10).events()).extracting(Event::type)
        .containsExactly("b");
    assertThat(ledger.events(quiet.cursor(), 10).events()).extracting(Event::type)
        .containsExactly("b");
  }

  @Test
  void emptyLedgerPageFromStartIsEmpty() {
    EventPage page = store.ledger("root-1", Plan.class).events(Cursor.START, 10);
    assertThat(page.events()).isEmpty();
    assertThat(page.nextCursor()).isEqualTo(Cursor.START);
    assertThat(page.hasMore()).isFalse();
  }

  @Test
  void pageLimitOutsideOneToThousandIsRefused() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    for (int limit : new int[] {0, -1, 1001, Integer.MAX_VALUE}) {
      assertThatThrownBy(() -> ledger.events(Cursor.START, limit))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("between 1 and 1000").hasMessageContaining("" + limit);
    }
    ledger.commit(0, plan(0), event("a", 1));
    assertThat(ledger.events(Cursor.START, 1000).events()).hasSize(1);
  }

  @Test
  void cursorsOfAnotherLedgerAreRefused() {
    Ledger<Plan> a = store.ledger("root-a", Plan.class);
    Ledger<Plan> b = store.ledger("root-b", Plan.class);
    CommitResult ra = a.commit(0, plan(0), event("a", 1));
    b.commit(0, plan(0), event("b", 1));
    assertThatThrownBy(() -> b.events(ra.cursor(), 10))
        .isInstanceOf(InvalidCursorException.class).hasMessageContaining("root-b")
        .hasMessageContaining("another ledger");
  }

  @Test
  void malformedCursorsAreRefused() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0), event("a", 1));
    String valid = ledger.events(Cursor.START, 1).nextCursor().token();
    List<String> bad = List.of("x", "!!!!", "e30", "bnVsbA", "W10", valid + "A",
        valid.substring(0, valid.length() - 3), "a".repeat(5000),
        base64("{\"v\":1}"), base64("{\"v\":2,\"root\":\"x\",\"after\":1,\"segment\":1,\"offset\":0}"),
        base64("{\"v\":\"1\"}"), base64("not json at all"), base64("{\"v\":1,\"v\":1}"));
    for (String token : bad) {
      assertThatThrownBy(() -> ledger.events(Cursor.of(token), 10))
          .as("token %s", token).isInstanceOf(InvalidCursorException.class);
      assertThatThrownBy(() -> ledger.replay(Cursor.of(token)))
          .as("token %s", token).isInstanceOf(InvalidCursorException.class);
    }
  }

  @Test
  void futureVersionCursorIsRefusedAsNewer() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0), event("a", 1));
    String token = base64("{\"after\":0,\"offset\":0,\"root\":\"0000000000000000\","
        + "\"segment\":1,\"v\":9}");
    assertThatThrownBy(() -> ledger.events(Cursor.of(token), 10))
        .isInstanceOf(InvalidCursorException.class).hasMessageContaining("newer");
  }

  @Test
  void cursorBeyondTheEndIsRefused() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0), event("a", 1), event("a", 2));
    Cursor one = ledger.events(Cursor.START, 1).nextCursor();
    String json = new String(java.util.Base64.getUrlDecoder().decode(one.token()),
        java.nio.charset.StandardCharsets.UTF_8);
    String forged = base64(json.replace("\"after\":1", "\"after\":5"));
    assertThatThrownBy(() -> ledger.events(Cursor.of(forged), 10))
        .isInstanceOf(InvalidCursorException.class);
    String forgedOffset = base64(json.replaceAll("\"offset\":\\d+", "\"offset\":3"));
    assertThatThrownBy(() -> ledger.events(Cursor.of(forgedOffset), 10))
        .isInstanceOf(InvalidCursorException.class);
  }

  @Test
  void cursorsStayValidAcrossReopen() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0), event("a", 1), event("a", 2), event("a", 3));
    Cursor cursor = ledger.events(Cursor.START, 2).nextCursor();
    if (persistent()) {
      store.close();
      store = reopen(options());
      ledger = store.ledger("root-1", Plan.class);
    }
    assertThat(ledger.events(cursor, 10).events()).extracting(Event::sequence)
        .containsExactly(3L);
  }

  @Test
  void replayStreamsEveryEventAfterTheCursor() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0));
    for (int i = 1; i <= 50; i++) {
      ledger.commit(i, plan(i), event("e", i), event("f", i));
    }
    try (Stream<Event> all = ledger.replay(Cursor.START)) {
      assertThat(all.map(Event::sequence).collect(Collectors.toList()))
          .isEqualTo(java.util.stream.LongStream.rangeClosed(1, 100).boxed().toList());
    }
    Cursor mid = ledger.events(Cursor.START, 41).nextCursor();
    try (Stream<Event> rest = ledger.replay(mid)) {
      assertThat(rest.map(Event::sequence).findFirst()).contains(42L);
    }
    try (Stream<Event> none = store.ledger("absent", Plan.class).replay(Cursor.START)) {
      assertThat(none).isEmpty();
    }
  }

  // ------------------------------------------------------------------ update

  @Test
  void updateAppliesTheChangeAndRecordsEvents() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0));
    Versioned<Plan> after = ledger.update(p -> p.step("t1"), event("stepped", 1));
    assertThat(after.revision()).isEqualTo(2);
    assertThat(after.state().done()).containsExactly("t1");
    assertThat(ledger.load().state()).isEqualTo(after.state());
    assertThat(ledger.events(Cursor.START, 10).events()).extracting(Event::revision)
        .containsExactly(2L);
  }

  @Test
  void updateOfAnAbsentLedgerIsNotFound() {
    assertThatThrownBy(() -> store.ledger("root-1", Plan.class).update(p -> p))
        .isInstanceOf(LedgerNotFoundException.class);
  }

  @Test
  void concurrentUpdatesAllLandExactlyOnce() throws Exception {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0));
    int threads = 4;
    int each = 25;
    List<Thread> workers = new ArrayList<>();
    List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    for (int t = 0; t < threads; t++) {
      Thread worker = new Thread(() -> {
        try {
          for (int i = 0; i < each; i++) {
            ledger.update(p -> new Plan(p.name(), p.steps() + 1, p.done()), event("inc", 1));
          }
        } catch (Throwable e) {
          failures.add(e);
        }
      });
      workers.add(worker);
      worker.start();
    }
    for (Thread worker : workers) {
      worker.join();
    }
    assertThat(failures).isEmpty();
    assertThat(ledger.load().state().steps()).isEqualTo(threads * each);
    assertThat(ledger.load().revision()).isEqualTo(threads * each + 1);
    try (Stream<Event> all = ledger.replay(Cursor.START)) {
      assertThat(all.map(Event::sequence).toList())
          .isEqualTo(java.util.stream.LongStream.rangeClosed(1, threads * each).boxed().toList());
    }
  }

  // ------------------------------------------------------------------ limits, ids, closing

  @Test
  void oversizedStateAndPayloadAreRefused() {
    store.close();
    store = openStore(options().withLimits(1024, 256));
    Ledger<JsonNode> ledger = store.ledger("root-1", JsonNode.class);
    ObjectNode big = JsonNodeFactory.instance.objectNode().put("s", "x".repeat(2000));
    assertThatThrownBy(() -> ledger.commit(0, big))
        .isInstanceOfSatisfying(LimitExceededException.class, e -> {
          assertThat(e.limit()).isEqualTo(1024);
          assertThat(e.actual()).isGreaterThan(2000);
        });
    ObjectNode small = JsonNodeFactory.instance.objectNode().put("s", "ok");
    assertThatThrownBy(() -> ledger.commit(0, small, EventDraft.of("e", Map.of("p",
        "y".repeat(300))))).isInstanceOf(LimitExceededException.class)
        .hasMessageContaining("payload");
    assertThat(ledger.find()).isEmpty();
    assertThat(store.rootIds()).isEmpty();
  }

  @Test
  void hostileRootIdsAreRefused() {
    List<String> hostile = new ArrayList<>(List.of("", ".", "..", "../x", "a/b", "a\\b", "/abs",
        "C:\\x", "a\u0000b", "a\nb", "tab\there", " lead", "x".repeat(129), ".hidden", "-flag",
        "caf\u00e9", "a b", "a:b", "\u202e",
        // Names Windows or macOS could not hold in a copy of the store:
        "CON", "nul", "Aux.json", "com1", "LPT9.tar.gz", "prn.", "run.", "a..b"));
    for (String id : hostile) {
      assertThatThrownBy(() -> store.ledger(id, Plan.class))
          .as("root id %s", id).isInstanceOf(InvalidIdentifierException.class);
    }
    // A null id is a programming error, not an invalid identifier.
    assertThatThrownBy(() -> store.ledger(null, Plan.class))
        .isInstanceOf(NullPointerException.class);
    assertThat(store.rootIds()).isEmpty();
  }

  @Test
  void idsDifferingOnlyInCaseAreDistinctLedgers() {
    store.ledger("Run", Plan.class).commit(0, plan(1));
    store.ledger("run", Plan.class).commit(0, plan(2));
    store.ledger("RUN", Plan.class).commit(0, plan(3));
    assertThat(store.ledger("Run", Plan.class).load().state()).isEqualTo(plan(1));
    assertThat(store.ledger("run", Plan.class).load().state()).isEqualTo(plan(2));
    assertThat(store.ledger("RUN", Plan.class).load().state()).isEqualTo(plan(3));
    assertThat(store.rootIds()).containsExactly("RUN", "Run", "run");
  }

  @Test
  void closedStoreRefusesEverything() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0));
    store.close();
    store.close();
    assertThatThrownBy(ledger::load).isInstanceOf(StoreClosedException.class);
    assertThatThrownBy(() -> ledger.commit(1, plan(1))).isInstanceOf(StoreClosedException.class);
    assertThatThrownBy(() -> ledger.events(Cursor.START, 1))
        .isInstanceOf(StoreClosedException.class);
    assertThatThrownBy(() -> store.ledger("root-2", Plan.class))
        .isInstanceOf(StoreClosedException.class);
    assertThatThrownBy(store::rootIds).isInstanceOf(StoreClosedException.class);
    store = null;
  }

  @Test
  void nullArgumentsAreRefused() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    assertThatThrownBy(() -> ledger.commit(0, null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> ledger.commit(-1, plan(0)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ledger.events(null, 1)).isInstanceOf(NullPointerException.class);
    assertThat(ledger.find()).isEmpty();
  }

  private static String base64(String json) {
    return java.util.Base64.getUrlEncoder().withoutPadding()
        .encodeToString(json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }
}
