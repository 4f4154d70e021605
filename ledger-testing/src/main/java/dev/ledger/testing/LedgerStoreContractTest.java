package dev.ledger.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.Change;
import dev.ledger.core.CommandConflictException;
import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Durability;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.EventPage;
import dev.ledger.core.InvalidCursorException;
import dev.ledger.core.InvalidIdentifierException;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerHead;
import dev.ledger.core.LedgerNotFoundException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.LimitExceededException;
import dev.ledger.core.PayloadMappingException;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.RootIdCursor;
import dev.ledger.core.RootIdPage;
import dev.ledger.core.StateMappingException;
import dev.ledger.core.StateType;
import dev.ledger.core.StoreClosedException;
import dev.ledger.core.Versioned;
import dev.ledger.testing.base.MutableClock;
import java.math.BigDecimal;
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
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link LedgerStore} must share. A backend runs it by extending this
 * class and implementing {@link #openStore}; it ships in ledger-testing, an ordinary
 * artifact, so that other modules and users can run it against their own backends.
 */
public abstract class LedgerStoreContractTest {
  /** For subclasses, one per store implementation. */
  protected LedgerStoreContractTest() {}

  /** The fixed instant the contract clock reads. */
  protected static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");

  /**
   * A small state type, as a record.
   *
   * @param name the plan's name
   * @param steps how many steps were taken
   * @param done the tasks done, in order
   */
  public record Plan(String name, int steps, List<String> done) {
    /**
     * Copies the task list.
     *
     * @param name the plan's name
     * @param steps how many steps were taken
     * @param done the tasks done, in order; copied
     * @throws NullPointerException if {@code done} or one of its tasks is null
     */
    public Plan {
      done = List.copyOf(done);
    }

    Plan step(String task) {
      List<String> next = new ArrayList<>(done);
      next.add(task);
      return new Plan(name, steps + 1, next);
    }
  }

  /**
   * The store under test: set before each test by {@link #openStore} with {@link #options()},
   * replaced when a test reopens; closed after each test.
   */
  protected LedgerStore store;

  /**
   * Opens a fresh, empty store; called once per test, before the test method runs.
   *
   * @param options the options the store must use (a test may pass its own limits or clock)
   * @return a new store that holds no ledger
   */
  protected abstract LedgerStore openStore(LedgerOptions options);

  /**
   * Reopens the same store: a new instance on the same data, as after a restart. The default,
   * for in-memory stores, returns the current instance; tests that need a restart check
   * {@link #persistent()} and skip otherwise.
   *
   * @param options the options the reopened store must use
   * @return a store that sees every commit acknowledged by the previous instance
   */
  protected LedgerStore reopen(LedgerOptions options) {
    return store;
  }

  /**
   * Holds the writer lock of a ledger from outside the store, until the returned handle is
   * closed: for a store whose commits hold their lock only inside a server transaction (a
   * database row lock), where pausing a commit at its clock read holds nothing. The default,
   * null, makes the delete contract hold the lock by pausing a commit of the store at its
   * clock read, which file and memory stores make under the writer lock.
   *
   * @param store a store of this suite
   * @param rootId the ledger whose lock to hold
   * @return a handle that releases the lock when closed, or null
   * @throws Exception if the lock cannot be taken
   */
  protected AutoCloseable holdWriterLock(LedgerStore store, String rootId) throws Exception {
    return null;
  }

  /**
   * Whether {@link #reopen} gives a new instance over the same data.
   *
   * @return true if the store keeps its data across instances; false by default
   */
  protected boolean persistent() {
    return false;
  }

  /**
   * The options every test's store is opened with, unless the test passes its own.
   *
   * @return the defaults with a clock fixed at {@link #NOW} and a 10 s lock wait
   */
  protected LedgerOptions options() {
    return LedgerOptions.defaults()
        .withClock(Clock.fixed(NOW, ZoneOffset.UTC))
        .withLockTimeout(Duration.ofSeconds(10));
  }

  /** The follow contract, {@link LedgerFollowContract}, on the stores this suite opens. */
  @Nested
  class Following extends LedgerFollowContract {
    @Override
    protected LedgerStore newStore(LedgerOptions options) {
      return openStore(options);
    }

    @Override
    protected LedgerOptions baseOptions() {
      return options();
    }
  }

  /** The export and import contract, {@link LedgerExportContract}, on these stores. */
  @Nested
  class Exporting extends LedgerExportContract {
    @Override
    protected LedgerStore newStore(LedgerOptions options) {
      return openStore(options);
    }

    @Override
    protected LedgerOptions baseOptions() {
      return options();
    }
  }

  /** The delete contract, {@link LedgerDeleteContract}, on these stores. */
  @Nested
  class Deleting extends LedgerDeleteContract {
    @Override
    protected LedgerStore newStore(LedgerOptions options) {
      return openStore(options);
    }

    @Override
    protected LedgerOptions baseOptions() {
      return options();
    }

    @Override
    protected AutoCloseable holdLock(LedgerStore store, String rootId) throws Exception {
      return holdWriterLock(store, rootId);
    }
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

  @Test
  void treeSubtypeStatesAreCopiesAndChecked() {
    store.ledger("root-1", JsonNode.class).commit(0, JsonNodeFactory.instance.objectNode()
        .put("a", 1));
    Ledger<ObjectNode> objects = store.ledger("root-1", ObjectNode.class);
    objects.load().state().put("a", 2);
    assertThat(objects.load().state().get("a").asInt()).isEqualTo(1);
    store.ledger("root-2", JsonNode.class).commit(0, JsonNodeFactory.instance.arrayNode());
    assertThatThrownBy(() -> store.ledger("root-2", ObjectNode.class).load())
        .isInstanceOf(StateMappingException.class).hasMessageContaining("ObjectNode");
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
  void retriedCommandOnAReDerivedStateReplays() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0));
    EventDraft draft = event("task.started", 7).withCommandId("cmd-42").withOperationId("op-1");
    CommitResult first = ledger.commit(1, plan(0).step("mine"), draft);
    ledger.commit(2, plan(0).step("mine").step("theirs"), event("other", 1));
    // The caller lost the answer, reloaded (revision 3) and derived its state again.
    Versioned<Plan> reloaded = ledger.load();
    CommitResult again = ledger.commit(reloaded.revision(), reloaded.state().step("mine"), draft);
    assertThat(again.replayed()).isTrue();
    assertThat(again.revision()).isEqualTo(first.revision());
    assertThat(again.events()).isEqualTo(first.events());
    assertThat(again.cursor()).isEqualTo(first.cursor());
    assertThat(ledger.load()).isEqualTo(reloaded);
    assertThat(ledger.events(Cursor.START, 100).events()).hasSize(2);
  }

  @Test
  void sameCommandIdWithDifferentDraftsIsAConflict() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0));
    EventDraft recorded = event("x", 1).withCommandId("cmd-1").withOperationId("op-1");
    ledger.commit(1, plan(1), recorded, event("y", 2));
    List<List<EventDraft>> different = List.of(
        List.of(event("x", 2).withCommandId("cmd-1").withOperationId("op-1"), event("y", 2)),
        List.of(event("z", 1).withCommandId("cmd-1").withOperationId("op-1"), event("y", 2)),
        List.of(event("x", 1).withCommandId("cmd-1").withOperationId("op-2"), event("y", 2)),
        List.of(event("x", 1).withCommandId("cmd-1"), event("y", 2)),
        List.of(event("y", 2).withCommandId("cmd-1"), recorded),
        List.of(recorded),
        List.of(recorded, event("y", 2), event("y", 2)));
    for (List<EventDraft> drafts : different) {
      assertThatThrownBy(() -> ledger.commit(2, plan(2), drafts)).as("drafts %s", drafts)
          .isInstanceOfSatisfying(CommandConflictException.class, e -> {
            assertThat(e.recordedRevision()).isEqualTo(2);
            assertThat(e.recordedDigest()).isNotEqualTo(e.attemptedDigest());
            assertThat(e.rootId()).isEqualTo("root-1");
          }).hasMessageContaining("root-1");
    }
    assertThat(ledger.commit(2, plan(7), recorded, event("y", 2)).replayed()).isTrue();
    assertThat(ledger.commit(0, plan(1), recorded, event("y", 2)).replayed()).isTrue();
    assertThat(ledger.load().revision()).isEqualTo(2);
    assertThat(ledger.events(Cursor.START, 100).events()).hasSize(2);
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
      assertThat(ledger.commit(10, plan(99), event("x", i).withCommandId("c-" + i)).revision())
          .as("retried on the current state").isEqualTo(i + 1);
    }
    Ledger<Plan> view = ledger;
    assertThatThrownBy(() -> view.commit(10, plan(99), event("x", 5).withCommandId("c-4")))
        .isInstanceOf(CommandConflictException.class);
    assertThat(ledger.load().revision()).isEqualTo(10);
  }

  @Test
  void commandsAreComparedByTheirPayloadsAsRecorded() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0));
    // More digits than a double holds: the journal gives back 3.141592653589793.
    ObjectNode payload = JsonNodeFactory.instance.objectNode();
    payload.set("amount", DecimalNode.valueOf(new BigDecimal("3.14159265358979323846")));
    EventDraft paid = new EventDraft("paid", payload, "pay-1", null);
    ledger.commit(1, plan(1), paid);
    if (persistent()) {
      store.close();
      store = reopen(options());
    }
    Ledger<Plan> again = store.ledger("root-1", Plan.class);
    assertThat(again.commit(2, plan(2), paid).replayed()).isTrue();
    EventDraft recorded = new EventDraft("paid", again.command("pay-1").orElseThrow().events()
        .get(0).payload(), "pay-1", null);
    assertThat(again.commit(2, plan(3), recorded).replayed()).isTrue();
    assertThat(again.load().revision()).isEqualTo(2);
  }

  @Test
  void commandTellsWhetherAndWhatWasRecorded() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    assertThat(ledger.command("cmd-1")).isEmpty();
    ledger.commit(0, plan(0), event("a", 0));
    CommitResult recorded = ledger.commit(1, plan(1), event("b", 1).withCommandId("cmd-1"),
        event("c", 2));
    ledger.commit(2, plan(2), event("d", 3).withCommandId("cmd-2"));

    CommitResult found = ledger.command("cmd-1").orElseThrow();
    assertThat(found.replayed()).isTrue();
    assertThat(found.revision()).isEqualTo(2);
    assertThat(found.events()).isEqualTo(recorded.events());
    assertThat(found.committedAt()).isEqualTo(recorded.committedAt());
    assertThat(found.cursor()).isEqualTo(recorded.cursor());
    assertThat(ledger.events(found.cursor(), 10).events()).extracting(Event::type)
        .containsExactly("d");
    assertThat(ledger.command("cmd-2").orElseThrow().revision()).isEqualTo(3);
    assertThat(ledger.command("cmd-3")).isEmpty();
    assertThat(store.ledger("root-2", Plan.class).command("cmd-1")).isEmpty();
    assertThat(ledger.load().revision()).isEqualTo(3);
  }

  @Test
  void commandIsFoundBeforeAndAfterCheckpointsAndAcrossReopen() {
    store.close();
    store = openStore(options().withCheckpointInterval(4));
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    List<CommitResult> results = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      results.add(ledger.commit(i, plan(i), event("x", i).withCommandId("c-" + i)));
    }
    for (int i = 0; i < 10; i++) {
      CommitResult found = ledger.command("c-" + i).orElseThrow();
      assertThat(found.revision()).isEqualTo(i + 1);
      assertThat(found.cursor()).isEqualTo(results.get(i).cursor());
    }
    if (persistent()) {
      store.close();
      store = reopen(options().withCheckpointInterval(4));
      Ledger<Plan> reopened = store.ledger("root-1", Plan.class);
      for (int i = 0; i < 10; i++) {
        CommitResult found = reopened.command("c-" + i).orElseThrow();
        assertThat(found.revision()).isEqualTo(i + 1);
        assertThat(found.events()).isEqualTo(results.get(i).events());
        assertThat(found.cursor()).isEqualTo(results.get(i).cursor());
      }
      assertThat(reopened.command("c-10")).isEmpty();
    }
  }

  @Test
  void commandIdOutOfBoundsIsRefused() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    assertThatThrownBy(() -> ledger.command(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> ledger.command("")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ledger.command("c".repeat(EventDraft.MAX_NAME_LENGTH + 1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("201");
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
    Versioned<Plan> after = ledger.update(p -> Change.to(p.step("t1"), event("stepped", 1)));
    assertThat(after.revision()).isEqualTo(2);
    assertThat(after.updatedAt()).isEqualTo(NOW);
    assertThat(after.state().done()).containsExactly("t1");
    assertThat(ledger.load().state()).isEqualTo(after.state());
    assertThat(ledger.events(Cursor.START, 10).events()).extracting(Event::revision)
        .containsExactly(2L);
  }

  @Test
  void updateThatDecidesNoChangeWritesNothing() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0), event("created", 0));
    Versioned<Plan> before = ledger.load();
    int[] calls = {0};
    Versioned<Plan> after = ledger.update(p -> {
      calls[0]++;
      return Change.none();
    });
    assertThat(calls[0]).isEqualTo(1);
    assertThat(after).isEqualTo(before);
    assertThat(ledger.load()).isEqualTo(before);
    assertThat(ledger.events(Cursor.START, 10).events()).extracting(Event::type)
        .containsExactly("created");
    if (persistent()) {
      store.close();
      store = reopen(options());
      assertThat(store.ledger("root-1", Plan.class).load()).isEqualTo(before);
    }
  }

  @Test
  void updateEventsMayDependOnTheState() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0));
    for (int i = 0; i < 3; i++) {
      ledger.update(p -> Change.to(p.step("t" + p.steps()),
          EventDraft.of("task.done", Map.of("task", "t" + p.steps(), "after", p.steps()))));
    }
    assertThat(ledger.load().state().done()).containsExactly("t0", "t1", "t2");
    assertThat(ledger.events(Cursor.START, 10).events())
        .extracting(e -> e.payload().get("task").asText() + "@" + e.payload().get("after"))
        .containsExactly("t0@0", "t1@1", "t2@2");
  }

  @Test
  void updateRetriesAfterAStagedConflictAndDecidesAgain() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    Ledger<Plan> other = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0));
    List<Plan> seen = new ArrayList<>();
    Versioned<Plan> after = ledger.update(p -> {
      seen.add(p);
      if (seen.size() == 1) { // another writer commits between our read and our commit
        other.commit(1, p.step("theirs"), event("theirs", 1));
      }
      return Change.to(p.step("mine"), EventDraft.of("mine", Map.of("saw", p.done())));
    });
    assertThat(seen).extracting(Plan::done)
        .containsExactly(List.of(), List.of("theirs"));
    assertThat(after.revision()).isEqualTo(3);
    assertThat(after.state().done()).containsExactly("theirs", "mine");
    assertThat(ledger.load()).isEqualTo(after);
    assertThat(ledger.events(Cursor.START, 10).events())
        .extracting(e -> e.type() + e.payload().get("saw"))
        .containsExactly("theirs" + null, "mine[\"theirs\"]");
  }

  @Test
  void updateThatFindsItsWorkDoneAfterAConflictWritesNothing() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0));
    int[] calls = {0};
    Versioned<Plan> after = ledger.update(p -> {
      if (calls[0]++ == 0) {
        ledger.commit(1, p.step("t1"), event("done", 1));
      }
      return p.done().contains("t1") ? Change.none() : Change.to(p.step("t1"), event("done", 2));
    });
    assertThat(calls[0]).isEqualTo(2);
    assertThat(after.revision()).isEqualTo(2);
    assertThat(ledger.load().revision()).isEqualTo(2);
    assertThat(ledger.events(Cursor.START, 10).events()).hasSize(1);
  }

  @Test
  void updateGivesUpAfterTheConfiguredAttempts() {
    store.close();
    store = openStore(options().withUpdateRetry(3, Duration.ZERO));
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0));
    int[] calls = {0};
    assertThatThrownBy(() -> ledger.update(p -> {
      calls[0]++;
      ledger.commit(ledger.load().revision(), p, event("interloper", calls[0]));
      return Change.to(p.step("never"), event("never", 0));
    })).isInstanceOfSatisfying(RevisionConflictException.class,
        e -> assertThat(e.getSuppressed()).hasSize(1));
    assertThat(calls[0]).isEqualTo(3);
    assertThat(ledger.load().revision()).isEqualTo(4);
    assertThat(ledger.load().state().done()).isEmpty();
  }

  @Test
  void updateWhoseCommandWasRecordedWritesNothing() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0));
    EventDraft done = event("done", 1).withCommandId("step-t1");
    ledger.update(p -> Change.to(p.step("t1"), done));
    ledger.commit(2, plan(5));
    Versioned<Plan> again = ledger.update(p -> Change.to(p.step("t1"), done));
    assertThat(again).isEqualTo(ledger.load());
    assertThat(again.revision()).isEqualTo(3);
    assertThat(again.state()).isEqualTo(plan(5));
    assertThat(ledger.events(Cursor.START, 10).events()).hasSize(1);
  }

  @Test
  void updateOfAnAbsentLedgerIsNotFound() {
    assertThatThrownBy(() -> store.ledger("root-1", Plan.class).update(p -> Change.none()))
        .isInstanceOf(LedgerNotFoundException.class);
  }

  @Test
  void updateFunctionReturningNullIsRefused() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    ledger.commit(0, plan(0));
    assertThatThrownBy(() -> ledger.update(p -> null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("Change.none()");
    assertThatThrownBy(() -> ledger.update(null)).isInstanceOf(NullPointerException.class);
    assertThat(ledger.load().revision()).isEqualTo(1);
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
            ledger.update(p -> Change.to(new Plan(p.name(), p.steps() + 1, p.done()),
                event("inc", 1)));
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

  // ------------------------------------------------------------------ state evolution

  /**
   * {@link Plan} before it had {@code done}: the field-added case reads these states.
   *
   * @param name the plan's name
   * @param steps how many steps were taken
   */
  public record PlanBefore(String name, int steps) {}

  /**
   * {@link Plan} with a field added, defaulted by its constructor when a state lacks it.
   *
   * @param name the plan's name
   * @param steps how many steps were taken
   * @param done the tasks done, in order
   * @param tags the plan's tags; empty when the stored state has none
   */
  public record PlanWithTags(String name, int steps, List<String> done, List<String> tags) {
    /**
     * Defaults a missing {@code tags} to the empty list.
     *
     * @param name the plan's name
     * @param steps how many steps were taken
     * @param done the tasks done, in order
     * @param tags the plan's tags, or null for none; copied
     */
    public PlanWithTags {
      tags = tags == null ? List.of() : List.copyOf(tags);
    }
  }

  /**
   * {@link Plan} with {@code name} renamed to {@code title} (state version 1).
   *
   * @param title the plan's name, stored as {@code name} before version 1
   * @param steps how many steps were taken
   * @param done the tasks done, in order
   */
  public record PlanRenamed(String title, int steps, List<String> done) {}

  /** Version 1 of the plan: {@code name} became {@code title}. */
  protected static final StateType<PlanRenamed> RENAMED = StateType.of(PlanRenamed.class)
      .withUpcaster(0, tree -> {
        ObjectNode plan = (ObjectNode) tree;
        plan.set("title", plan.remove("name"));
        return plan;
      });

  @Test
  void stateWithAFieldAddedLoadsWithTheFieldDefaulted() {
    store.ledger("root-1", PlanBefore.class).commit(0, new PlanBefore("p", 2));
    Versioned<PlanWithTags> loaded = store.ledger("root-1", PlanWithTags.class).load();
    assertThat(loaded.state()).isEqualTo(new PlanWithTags("p", 2, null, List.of()));
    // Plan's constructor refuses a missing list instead of defaulting it.
    assertThatThrownBy(() -> store.ledger("root-1", Plan.class).load())
        .isInstanceOfSatisfying(StateMappingException.class,
            e -> assertThat(e.revision()).isEqualTo(1))
        .hasMessageContaining(Plan.class.getName());
  }

  @Test
  void stateWithAFieldRemovedLoadsAndTheFieldIsDroppedAtTheNextCommit() {
    Ledger<Plan> old = store.ledger("root-1", Plan.class);
    old.commit(0, plan(0).step("t1"));
    Ledger<PlanBefore> slimmer = store.ledger("root-1", PlanBefore.class);
    assertThat(slimmer.load().state()).isEqualTo(new PlanBefore("p", 1));
    slimmer.update(p -> Change.to(new PlanBefore(p.name(), p.steps() + 1)));
    JsonNode stored = store.ledger("root-1", JsonNode.class).load().state();
    assertThat(stored.has("done")).isFalse();
    assertThat(stored.get("steps").asInt()).isEqualTo(2);
  }

  @Test
  void stateWithAFieldRenamedLoadsThroughItsUpcaster() {
    store.ledger("root-1", Plan.class).commit(0, plan(0).step("t1"));
    Ledger<PlanRenamed> renamed = store.ledger("root-1", RENAMED);
    assertThat(renamed.load().state()).isEqualTo(new PlanRenamed("p", 1, List.of("t1")));
    // The stored state is not rewritten by reading: version 0 programs still read it.
    assertThat(store.ledger("root-1", Plan.class).load().state().name()).isEqualTo("p");

    renamed.update(p -> Change.to(new PlanRenamed(p.title() + "!", p.steps(), p.done())));
    if (persistent()) {
      store.close();
      store = reopen(options());
    }
    assertThat(store.ledger("root-1", RENAMED).load().state())
        .isEqualTo(new PlanRenamed("p!", 1, List.of("t1")));
    StateType<JsonNode> treeAtVersion1 = StateType.of(JsonNode.class).withUpcaster(0, t -> t);
    assertThat(store.ledger("root-1", treeAtVersion1).load().state().has("name")).isFalse();
    assertThatThrownBy(() -> store.ledger("root-1", Plan.class).load())
        .isInstanceOfSatisfying(StateMappingException.class, e -> {
          assertThat(e.rootId()).isEqualTo("root-1");
          assertThat(e.revision()).isEqualTo(2);
        }).hasMessageContaining("state version 1").hasMessageContaining("newer");
  }

  @Test
  void upcastersRunInOrderFromTheStoredVersion() {
    StateType<JsonNode> v1 = StateType.of(JsonNode.class)
        .withUpcaster(0, tree -> ((ObjectNode) tree).put("path", "0"));
    StateType<JsonNode> v3 = v1
        .withUpcaster(1, tree -> ((ObjectNode) tree).put("path", tree.get("path").asText() + "1"))
        .withUpcaster(2, tree -> ((ObjectNode) tree).put("path", tree.get("path").asText() + "2"));
    store.ledger("root-0", JsonNode.class).commit(0, JsonNodeFactory.instance.objectNode());
    store.ledger("root-1", v1).commit(0, JsonNodeFactory.instance.objectNode().put("path", "*"));
    assertThat(store.ledger("root-0", v3).load().state().get("path").asText()).isEqualTo("012");
    assertThat(store.ledger("root-1", v3).load().state().get("path").asText()).isEqualTo("*12");
    assertThat(store.ledger("root-1", v1).load().state().get("path").asText()).isEqualTo("*");
    assertThatThrownBy(() -> v1.withUpcaster(0, tree -> tree))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("version 1");
  }

  @Test
  void failingUpcasterIsAStateMappingError() {
    store.ledger("root-1", Plan.class).commit(0, plan(0));
    StateType<Plan> throwing = StateType.of(Plan.class).withUpcaster(0, tree -> {
      throw new IllegalStateException("cannot upcast this");
    });
    assertThatThrownBy(() -> store.ledger("root-1", throwing).load())
        .isInstanceOf(StateMappingException.class).hasMessageContaining("cannot upcast this")
        .hasMessageContaining("upcaster from state version 0")
        .hasCauseInstanceOf(IllegalStateException.class);
    StateType<Plan> returningNull = StateType.of(Plan.class).withUpcaster(0, tree -> null);
    assertThatThrownBy(() -> store.ledger("root-1", returningNull).find())
        .isInstanceOf(StateMappingException.class).hasMessageContaining("returned null");
    assertThat(store.ledger("root-1", Plan.class).load().state()).isEqualTo(plan(0));
  }

  @Test
  void stateThatNoLongerMapsIsAStateMappingErrorNamingTheField() {
    Ledger<JsonNode> raw = store.ledger("root-1", JsonNode.class);
    raw.commit(0, JsonNodeFactory.instance.objectNode().put("name", "p").put("steps", 1)
        .set("done", JsonNodeFactory.instance.arrayNode().add("t1")));
    ObjectNode broken = JsonNodeFactory.instance.objectNode().put("name", "p")
        .put("steps", 1);
    broken.putArray("done").addObject().put("not", "a string");
    raw.commit(1, broken);
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    for (Runnable read : List.<Runnable>of(ledger::load, ledger::find,
        () -> ledger.update(p -> Change.none()))) {
      assertThatThrownBy(read::run)
          .isInstanceOfSatisfying(StateMappingException.class, e -> {
            assertThat(e.rootId()).isEqualTo("root-1");
            assertThat(e.revision()).isEqualTo(2);
            assertThat(e.path()).isEqualTo("/done/0");
            assertThat(e.getCause()).isInstanceOf(
                com.fasterxml.jackson.core.JsonProcessingException.class);
          })
          .hasMessageContaining("root-1").hasMessageContaining("revision 2")
          .hasMessageContaining("/done/0").hasMessageContaining(Plan.class.getName());
    }
    assertThat(raw.load().revision()).isEqualTo(2);
  }

  @Test
  void genericStateTypesMapThroughTypeReferences() {
    Ledger<Map<String, List<Integer>>> ledger = store.ledger("root-1",
        new TypeReference<Map<String, List<Integer>>>() {});
    ledger.commit(0, Map.of("a", List.of(1, 2), "b", List.of()));
    Map<String, List<Integer>> state = ledger.load().state();
    assertThat(state).isEqualTo(Map.of("a", List.of(1, 2), "b", List.of()));
    assertThat(state.get("a").get(0)).isInstanceOf(Integer.class);
    Ledger<List<Plan>> plans = store.ledger("root-2", new TypeReference<List<Plan>>() {});
    plans.commit(0, List.of(plan(1), plan(2)));
    assertThat(plans.load().state()).containsExactly(plan(1), plan(2));
  }

  /** A state whose property names a naming strategy changes. */
  public record Owner(String firstName, int stepCount) {}

  @Test
  void theStoreMapperIsConfigurable() {
    store.close();
    store = openStore(options().withMapper(builder -> builder
        .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)));
    Ledger<Owner> ledger = store.ledger("root-1", Owner.class);
    ledger.commit(0, new Owner("Ada", 3));
    assertThat(store.ledger("root-1", JsonNode.class).load().state().fieldNames())
        .toIterable().containsExactly("first_name", "step_count");
    assertThat(ledger.load().state()).isEqualTo(new Owner("Ada", 3));
    store.ledger("root-1", JsonNode.class).update(tree -> Change.to(
        ((ObjectNode) tree.deepCopy()).put("extra", true)));
    assertThatThrownBy(ledger::load)
        .isInstanceOfSatisfying(StateMappingException.class,
            e -> assertThat(e.path()).isEqualTo("/extra"));
  }

  @Test
  void payloadsMapToClassesAndGenericTypes() {
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    CommitResult r = ledger.commit(0, plan(0), EventDraft.of("planned", plan(3)),
        EventDraft.of("counts", Map.of("a", List.of(1, 2))));
    Event planned = ledger.events(Cursor.START, 10).events().get(0);
    assertThat(planned.payloadAs(Plan.class)).isEqualTo(plan(3));
    assertThat(planned.payloadAs(PlanBefore.class)).isEqualTo(new PlanBefore("p", 3));
    assertThat(r.events().get(1).payloadAs(new TypeReference<Map<String, List<Integer>>>() {}))
        .isEqualTo(Map.of("a", List.of(1, 2)));
    assertThat(planned.payloadAs(JsonNode.class)).isEqualTo(planned.payload())
        .isNotSameAs(planned.payload());
    assertThatThrownBy(() -> planned.payloadAs(new TypeReference<List<String>>() {}))
        .isInstanceOfSatisfying(PayloadMappingException.class, e -> {
          assertThat(e.rootId()).isEqualTo("root-1");
          assertThat(e.sequence()).isEqualTo(1);
        }).hasMessageContaining("planned");
    Event counts = r.events().get(1);
    assertThatThrownBy(() -> counts.payloadAs(
        new TypeReference<Map<String, List<Plan>>>() {}))
        .isInstanceOfSatisfying(PayloadMappingException.class,
            e -> assertThat(e.path()).isEqualTo("/a/0"));
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
  // ------------------------------------------------------------------ exists / head / pages

  /** The head {@code load()} implies, with {@code events} events committed so far. */
  private static LedgerHead headOf(String root, Versioned<?> loaded, long events) {
    return new LedgerHead(root, loaded.revision(), events, loaded.updatedAt());
  }

  @Test
  void absentLedgerDoesNotExistAndHasNoHead() {
    store.ledger("root-1", Plan.class); // handed out, never committed to
    assertThat(store.exists("root-1")).isFalse();
    assertThat(store.head("root-1")).isEmpty();
    assertThat(store.exists("root-2")).isFalse();
    assertThat(store.head("root-2")).isEmpty();
    RootIdPage page = store.rootIds(RootIdCursor.START, 10);
    assertThat(page.rootIds()).isEmpty();
    assertThat(page.hasMore()).isFalse();
    assertThat(page.nextCursor()).isEqualTo(RootIdCursor.START);
  }

  @Test
  void headMatchesLoadAndCountsEventsAcrossCommits() {
    MutableClock clock = new MutableClock(NOW);
    store.close();
    store = openStore(options().withClock(clock).withCheckpointInterval(3));
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    // Event counts per commit: none on the first, several, none again, one, several.
    int[] perCommit = {0, 3, 0, 1, 4, 0, 2, 5};
    long events = 0;
    Plan current = plan(0);
    for (int i = 0; i < perCommit.length; i++) {
      clock.advance(Duration.ofSeconds(1 + i));
      List<EventDraft> drafts = new ArrayList<>();
      for (int e = 0; e < perCommit[i]; e++) {
        drafts.add(event("e", e));
      }
      current = current.step("t" + i);
      ledger.commit(i, current, drafts.toArray(EventDraft[]::new));
      events += perCommit[i];
      Versioned<Plan> loaded = ledger.load();
      assertThat(loaded.updatedAt()).isEqualTo(clock.instant());
      assertThat(store.exists("root-1")).isTrue();
      assertThat(store.head("root-1")).as("head after commit %d", i + 1)
          .contains(headOf("root-1", loaded, events));
    }
    assertThat(events).isEqualTo(15);
    // The last event's sequence is the event count.
    List<Event> all = ledger.events(Cursor.START, 1000).events();
    assertThat(all).hasSize(15);
    assertThat(all.get(all.size() - 1).sequence()).isEqualTo(events);
    assertThat(store.exists("root-2")).isFalse();
  }

  @Test
  void headIsReadWithoutTheStateTypeAndAcrossInstances() {
    store.close();
    LedgerOptions options = options().withCheckpointInterval(3);
    store = openStore(options);
    Ledger<Plan> ledger = store.ledger("root-1", Plan.class);
    Plan current = plan(0);
    ledger.commit(Ledger.NO_REVISION, current, event("created", 0));
    for (int i = 1; i <= 7; i++) {
      current = current.step("t" + i);
      ledger.commit(i, current, event("step", i), event("step", i));
    }
    LedgerHead expected = headOf("root-1", ledger.load(), 15);
    // A state that no longer maps to Plan does not stop head: it never maps the state.
    store.ledger("root-2", JsonNode.class).commit(Ledger.NO_REVISION,
        JsonNodeFactory.instance.objectNode().put("name", 5).put("steps", "many"));
    assertThat(store.head("root-2")).contains(
        new LedgerHead("root-2", 1, 0, NOW));
    assertThat(store.head("root-1")).contains(expected);
    if (!persistent()) {
      return;
    }
    // Another instance on the same data: no cached position, checkpoint header plus the
    // records after it; then, once it has loaded, forward from its cached position.
    LedgerStore other = reopen(options);
    try {
      assertThat(other.exists("root-1")).isTrue();
      assertThat(other.head("root-1")).contains(expected);
      other.ledger("root-1", Plan.class).load();
      current = current.step("t8");
      ledger.commit(8, current, event("step", 8));
      LedgerHead after = headOf("root-1", ledger.load(), 16);
      assertThat(other.head("root-1")).contains(after);
      assertThat(other.head("root-1").orElseThrow())
          .isEqualTo(headOf("root-1", other.ledger("root-1", Plan.class).load(), 16));
    } finally {
      other.close();
    }
    store.close();
    store = reopen(options);
    assertThat(store.head("root-1")).contains(headOf("root-1",
        store.ledger("root-1", Plan.class).load(), 16));
  }

  @Test
  void rootIdsArePagedInOrderThrough2500Ledgers() {
    // Several ledgers committed per instance keep files open until close; reopen in batches.
    store.close();
    LedgerOptions options = options().withDurability(Durability.UNSAFE_NO_SYNC);
    store = openStore(options);
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 2500; i++) {
      // Mixed lengths and characters, so that sorted order is not creation order.
      ids.add((i % 3 == 0 ? "B-" : i % 3 == 1 ? "a." : "a_") + Integer.toString(i * 7919, 36));
    }
    for (int i = 0; i < ids.size(); i++) {
      store.ledger(ids.get(i), JsonNode.class).commit(Ledger.NO_REVISION,
          JsonNodeFactory.instance.numberNode(i));
      if (persistent() && i % 500 == 499) {
        LedgerStore next = reopen(options);
        store.close();
        store = next;
      }
    }
    List<String> sorted = ids.stream().sorted().toList();
    assertThat(store.rootIds()).isEqualTo(sorted);
    for (int limit : new int[] {1000, 333}) {
      List<String> seen = new ArrayList<>();
      RootIdCursor cursor = RootIdCursor.START;
      int pages = 0;
      while (true) {
        RootIdPage page = store.rootIds(cursor, limit);
        pages++;
        assertThat(page.rootIds().size()).isLessThanOrEqualTo(limit);
        seen.addAll(page.rootIds());
        if (!page.hasMore()) {
          break;
        }
        assertThat(page.rootIds()).hasSize(limit);
        cursor = page.nextCursor();
      }
      assertThat(seen).as("pages of %d", limit).isEqualTo(sorted);
      assertThat(pages).isEqualTo((2500 + limit - 1) / limit);
    }
    // A cursor survives being stored as its token.
    RootIdPage first = store.rootIds(RootIdCursor.START, 10);
    assertThat(store.rootIds(RootIdCursor.of(first.nextCursor().token()), 5).rootIds())
        .isEqualTo(sorted.subList(10, 15));
    // Exactly the remaining ids: no more after them.
    RootIdPage tail = store.rootIds(RootIdCursor.of(
        store.rootIds(RootIdCursor.START, 1000).nextCursor().token()), 1000);
    RootIdPage last = store.rootIds(tail.nextCursor(), 500);
    assertThat(last.rootIds()).isEqualTo(sorted.subList(2000, 2500));
    assertThat(last.hasMore()).isFalse();
    RootIdPage beyond = store.rootIds(last.nextCursor(), 10);
    assertThat(beyond.rootIds()).isEmpty();
    assertThat(beyond.hasMore()).isFalse();
    assertThat(beyond.nextCursor()).isEqualTo(last.nextCursor());
  }

  @Test
  void aLedgerCommittedBetweenPagesAppearsOnlyIfItSortsAfterTheCursor() {
    for (String id : List.of("b", "d", "f", "h")) {
      store.ledger(id, JsonNode.class).commit(Ledger.NO_REVISION,
          JsonNodeFactory.instance.objectNode());
    }
    store.ledger("e", JsonNode.class); // handed out, not committed to: never listed
    RootIdPage first = store.rootIds(RootIdCursor.START, 2);
    assertThat(first.rootIds()).containsExactly("b", "d");
    assertThat(first.hasMore()).isTrue();
    for (String id : List.of("a", "c", "e", "g")) {
      store.ledger(id, JsonNode.class).commit(Ledger.NO_REVISION,
          JsonNodeFactory.instance.objectNode());
    }
    RootIdPage second = store.rootIds(first.nextCursor(), 2);
    assertThat(second.rootIds()).containsExactly("e", "f");
    RootIdPage third = store.rootIds(second.nextCursor(), 2);
    assertThat(third.rootIds()).containsExactly("g", "h");
    assertThat(third.hasMore()).isFalse();
    assertThat(store.rootIds(RootIdCursor.START, 1000).rootIds())
        .containsExactly("a", "b", "c", "d", "e", "f", "g", "h");
  }

  @Test
  void existsHeadAndPagesFollowTheErrorContract() {
    assertThatThrownBy(() -> store.exists(null)).isExactlyInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> store.head(null)).isExactlyInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> store.rootIds(null, 10))
        .isExactlyInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> store.exists("../x"))
        .isInstanceOf(InvalidIdentifierException.class);
    assertThatThrownBy(() -> store.head("con"))
        .isInstanceOf(InvalidIdentifierException.class);
    for (int limit : new int[] {0, -1, 1001}) {
      assertThatThrownBy(() -> store.rootIds(RootIdCursor.START, limit))
          .isExactlyInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(Integer.toString(limit));
    }
    for (String token : List.of("not base64!", "aGVsbG8", "aWRzMTouLg")) {
      assertThatThrownBy(() -> store.rootIds(RootIdCursor.of(token), 10))
          .isInstanceOf(InvalidCursorException.class).hasMessageContaining(token);
    }
    store.ledger("root-1", JsonNode.class).commit(Ledger.NO_REVISION,
        JsonNodeFactory.instance.objectNode());
    store.close();
    assertThatThrownBy(() -> store.exists("root-1"))
        .isInstanceOf(StoreClosedException.class);
    assertThatThrownBy(() -> store.head("root-1")).isInstanceOf(StoreClosedException.class);
    assertThatThrownBy(() -> store.rootIds(RootIdCursor.START, 10))
        .isInstanceOf(StoreClosedException.class);
  }
}
